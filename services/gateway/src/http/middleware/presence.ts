import type { Upstreams } from '../../use-cases/upstreams';
import type { GatewayMiddleware } from '../context';

/**
 * Asks Redis about the X-Device-ID device (presence and removal) in the same
 * turn as the rate limit, so all leave in one round trip; the answer is used
 * only after the device is known to be the client's. With a test key too:
 * presence does not matter there, removal does.
 */
export function askPresence(up: Pick<Upstreams, 'directory'>): GatewayMiddleware {
  return (ctx, next) => {
    const deviceId = ctx.get('x-device-id');
    if (deviceId && ctx.state.auth) {
      const state = up.directory.state(deviceId);
      state.catch(() => undefined); // awaited later, or not at all if the request stops before
      ctx.state.presence = { deviceId, state };
    }
    return next();
  };
}
