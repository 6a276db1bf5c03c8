import Router from '@koa/router';
import type { DashState } from '../src/http/context';
import { guardRoutes, may, ROUTE_ACCESS, sectionsOf } from '../src/http/access';

describe('who may open which dashboard route', () => {
  it('when a route is not in the access table, then the app does not start: nothing opens by omission', () => {
    const router = new Router<DashState>();
    router.get('/keys', () => undefined);
    router.post('/secret-door', () => undefined);
    expect(() => guardRoutes(router, () => undefined)).toThrow('POST /secret-door has no entry in ROUTE_ACCESS');
  });

  it('when each role is asked, then it holds what issue 41 gives it and nothing more', () => {
    const allowed = (role: 'owner' | 'admin' | 'developer' | 'support') =>
      Object.entries(ROUTE_ACCESS)
        .filter(([, permission]) => may(role, permission))
        .map(([route]) => route);
    expect(allowed('owner')).toEqual(Object.keys(ROUTE_ACCESS));
    expect(allowed('admin').filter((r) => r.includes('/members'))).toEqual([]);
    expect(allowed('admin')).toEqual(
      expect.arrayContaining(['POST /keys', 'POST /phones', 'POST /webhooks', 'POST /settings/fleet', 'GET /audit']),
    );
    expect(allowed('developer')).toEqual(expect.arrayContaining(['POST /keys', 'GET /phones', 'GET /settings', 'GET /messages']));
    expect(allowed('developer').filter((r) => r.startsWith('POST') && !r.startsWith('POST /profile'))).toEqual([
      'POST /signout',
      'POST /settings/password',
      'POST /keys',
      'POST /keys/:keyId/revoke',
    ]);
    expect(may('developer', 'keys.live')).toBe(false);
    const support = allowed('support');
    expect(support).toEqual(expect.arrayContaining(['GET /messages', 'GET /inbox/:number', 'POST /inbox/:number/reply', 'POST /opt-outs']));
    expect(support.filter((r) => /keys|settings\/secret|webhooks|phones|audit|members/.test(r))).toEqual([]);
    expect(sectionsOf('support')).toEqual(['overview', 'messages', 'campaigns', 'inbox', 'opt-outs', 'statistics', 'profile']);
    expect(may(undefined, 'self')).toBe(false);
  });
});
