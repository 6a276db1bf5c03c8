import type { Upstreams } from '../../use-cases/upstreams';
import type { GatewayMiddleware } from '../context';

/**
 * Asks for the presence of the X-Device-ID device in the same turn as the
 * rate limit, so both leave in one Redis round trip; the answer is used
 * only after the device is known to be the client's.
 */
export function askPresence(up: Pick<Upstreams, 'directory'>): GatewayMiddleware {
  return (ctx, next) => {
    const deviceId = ctx.get('x-device-id');
    if (deviceId && ctx.state.auth?.mode === 'live') {
      const online = up.directory.isOnline(deviceId);
      online.catch(() => undefined); // awaited later, or not at all if the request stops before
      ctx.state.presence = { deviceId, online };
    }
    return next();
  };
}
