import Router from '@koa/router';
import { chooseDevice } from '../../use-cases/choose-device.use-case';
import type { Upstreams } from '../../use-cases/upstreams';
import type { GatewayMiddleware, GatewayState } from '../context';

export function authRoutes(up: Upstreams, auth: GatewayMiddleware, guard: GatewayMiddleware): Router<GatewayState> {
  const router = new Router<GatewayState>();
  router.get('/v1/auth/test', auth, guard, async (ctx) => {
    const session = ctx.state.auth!;
    const device = await chooseDevice(up, session, ctx.get('x-device-id') || undefined);
    ctx.body = {
      success: true,
      message: 'Authentification réussie.',
      client_id: session.clientId,
      device_id: device.deviceId,
      device_status: device.status,
      mode: session.mode,
    };
  });
  return router;
}
