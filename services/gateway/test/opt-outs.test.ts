import { apiKey, CLIENT, FleetGateway, T0 } from './support/fleet-gateway';

/** The suppression list (issue 24): GET, POST and DELETE /v1/opt-outs through the gateway's real app on real Redis. */
describe('the suppression list: /v1/opt-outs', () => {
  const gw = new FleetGateway();
  const live = apiKey('live');
  const test = apiKey('test');
  const T1 = '2030-01-14T08:00:00.000Z';

  beforeAll(async () => {
    await gw.start();
    gw.optOuts = [
      { clientId: CLIENT, mode: 'MODE_LIVE', phoneNumber: '+33698765432', source: 'keyword', keyword: 'STOP', createdAt: T0 },
      { clientId: CLIENT, mode: 'MODE_LIVE', phoneNumber: '+33612345678', source: 'dashboard', keyword: '', createdAt: T1 },
      { clientId: CLIENT, mode: 'MODE_TEST', phoneNumber: '+33622222222', source: 'api', keyword: '', createdAt: T1 },
      { clientId: 'client_1736935200000999999', mode: 'MODE_LIVE', phoneNumber: '+33633333333', source: 'api', keyword: '', createdAt: T1 },
    ];
  });

  afterAll(() => gw.stop());

  const lastCall = () => gw.optOutCalls.at(-1);

  it('when the list is asked with a live key, then its live entries come in the history envelope, keyword null unless sent', async () => {
    const res = await gw.call('GET', '/v1/opt-outs', { key: live });

    expect(res).toEqual({
      status: 200,
      body: {
        success: true,
        data: [
          { phone_number: '+33698765432', source: 'keyword', keyword: 'STOP', created_at: T0 },
          { phone_number: '+33612345678', source: 'dashboard', keyword: null, created_at: T1 },
        ],
        pagination: { current_page: 1, per_page: 50, total_pages: 1, total_items: 2 },
      },
    });
    expect(lastCall()).toEqual({ rpc: 'list', req: { clientId: CLIENT, mode: 'MODE_LIVE', page: 1, limit: 50 } });
  });

  it('when page 2 of 1-item pages is asked, then the page and limit reach the service and the pagination says so', async () => {
    const res = await gw.call('GET', '/v1/opt-outs?page=2&limit=1', { key: live });
    expect(res.body).toMatchObject({
      data: [{ phone_number: '+33612345678' }],
      pagination: { current_page: 2, per_page: 1, total_pages: 2, total_items: 2 },
    });
    expect(lastCall()).toMatchObject({ req: { page: 2, limit: 1 } });
  });

  it.each([
    ['page=abc', 'page'],
    ['page=-1', 'page'],
    ['limit=1.5', 'limit'],
  ])('when the query has %s, then 400 INVALID_PAGINATION names %s and the service is not called', async (query, field) => {
    const before = gw.optOutCalls.length;
    const res = await gw.call('GET', `/v1/opt-outs?${query}`, { key: live });
    expect(res).toMatchObject({
      status: 400,
      body: { success: false, error: { code: 'INVALID_PAGINATION', details: [{ field, code: 'INVALID_PAGINATION' }] } },
    });
    expect(gw.optOutCalls.length).toBe(before);
  });

  it('when the limit is over 100, then the service refuses it as the history (400 INVALID_PAGINATION)', async () => {
    expect(await gw.call('GET', '/v1/opt-outs?limit=101', { key: live })).toMatchObject({
      status: 400,
      body: { error: { code: 'INVALID_PAGINATION' } },
    });
  });

  it('when a number is added with spaces, then the service gets it normalised, source api, in the key mode, and the entry comes back', async () => {
    const res = await gw.call('POST', '/v1/opt-outs', { key: live, body: { phone_number: '+33 6 44 44 44 44' } });

    expect(res).toEqual({
      status: 200,
      body: { success: true, phone_number: '+33644444444', source: 'api', keyword: null, created_at: T0 },
    });
    expect(lastCall()).toEqual({
      rpc: 'add',
      req: { clientId: CLIENT, mode: 'MODE_LIVE', phoneNumber: '+33644444444', source: 'api' },
    });
  });

  it('when a number already on the list is added again, then its first entry is answered unchanged', async () => {
    const res = await gw.call('POST', '/v1/opt-outs', { key: live, body: { phone_number: '+33698765432' } });
    expect(res).toEqual({
      status: 200,
      body: { success: true, phone_number: '+33698765432', source: 'keyword', keyword: 'STOP', created_at: T0 },
    });
  });

  it.each([
    ['a national number', { phone_number: '0612345678' }],
    ['a number too short', { phone_number: '+12' }],
    ['no number', {}],
    ['a number as an integer', { phone_number: 33612345678 }],
  ])(
    'when %s is added, then 400 INVALID_PHONE_NUMBER names phone_number, as a send for a bad to, and the service is not called',
    async (_what, body) => {
      const before = gw.optOutCalls.length;
      const res = await gw.call('POST', '/v1/opt-outs', { key: live, body });
      const send = await gw.call('POST', '/v1/sms/send', { key: live, body: { to: '+12', message: 'Bonjour' } });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        success: false,
        error: {
          code: 'INVALID_PHONE_NUMBER',
          message: send.body.error!.message,
          details: [{ field: 'phone_number', code: 'INVALID_PHONE_NUMBER', message: send.body.error!.details![0]!.message }],
        },
      });
      expect(gw.optOutCalls.length).toBe(before);
    },
  );

  it('when the body is not JSON, then 400 INVALID_JSON', async () => {
    const res = await fetch(`${gw.base}/v1/opt-outs`, {
      method: 'POST',
      headers: { 'x-api-key': live, 'x-client-id': CLIENT, 'content-type': 'application/json' },
      body: '{nope',
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: 'INVALID_JSON' } });
  });

  it('when a number is removed with its + URL-encoded, then the service gets it normalised in the key mode and it is off the list', async () => {
    const res = await gw.call('DELETE', `/v1/opt-outs/${encodeURIComponent('+33644444444')}`, { key: live });

    expect(res).toEqual({ status: 200, body: { success: true, phone_number: '+33644444444', removed: true } });
    expect(lastCall()).toEqual({ rpc: 'remove', req: { clientId: CLIENT, mode: 'MODE_LIVE', phoneNumber: '+33644444444' } });
    const list = await gw.call('GET', '/v1/opt-outs', { key: live });
    expect(list.body.data).not.toContainEqual(expect.objectContaining({ phone_number: '+33644444444' }));
  });

  it('when a number is removed with a literal + and spaces encoded, then it is normalised as well', async () => {
    const res = await gw.call('DELETE', `/v1/opt-outs/+33%206%2012%2034%2056%2078`, { key: live });
    expect(res).toEqual({ status: 200, body: { success: true, phone_number: '+33612345678', removed: true } });
  });

  it('when a number not on the list is removed, then the service 404 OPT_OUT_NOT_FOUND is the answer', async () => {
    const res = await gw.call('DELETE', `/v1/opt-outs/${encodeURIComponent('+33655555555')}`, { key: live });
    expect(res).toEqual({
      status: 404,
      body: { success: false, error: { code: 'OPT_OUT_NOT_FOUND', message: "Ce numéro n'est pas dans la liste d'opposition." } },
    });
    expect(lastCall()).toMatchObject({ rpc: 'remove', req: { phoneNumber: '+33655555555' } });
  });

  it.each(['0612345678', '33612345678', '%2B12', 'abc', '%2B33%E0%A4%A'])(
    'when %s is removed, then 400 INVALID_PHONE_NUMBER names phone_number and the service is not called',
    async (number) => {
      const before = gw.optOutCalls.length;
      const res = await gw.call('DELETE', `/v1/opt-outs/${number}`, { key: live });
      expect(res).toMatchObject({
        status: 400,
        body: {
          success: false,
          error: { code: 'INVALID_PHONE_NUMBER', details: [{ field: 'phone_number', code: 'INVALID_PHONE_NUMBER' }] },
        },
      });
      expect(gw.optOutCalls.length).toBe(before);
    },
  );

  it('when a test key lists, adds and removes, then the service is asked in test mode and the live list is not touched', async () => {
    const list = await gw.call('GET', '/v1/opt-outs', { key: test });
    expect(lastCall()).toMatchObject({ rpc: 'list', req: { clientId: CLIENT, mode: 'MODE_TEST' } });
    expect(list.body.data).toEqual([{ phone_number: '+33622222222', source: 'api', keyword: null, created_at: T1 }]);

    await gw.call('POST', '/v1/opt-outs', { key: test, body: { phone_number: '+33698765432' } });
    expect(lastCall()).toMatchObject({ rpc: 'add', req: { mode: 'MODE_TEST', phoneNumber: '+33698765432' } });
    // The live entry of that number (keyword STOP) is untouched: the test one is new.
    expect(gw.optOuts.filter((o) => o.phoneNumber === '+33698765432').map((o) => [o.mode, o.source])).toEqual([
      ['MODE_TEST', 'api'],
      ['MODE_LIVE', 'keyword'],
    ]);

    expect(await gw.call('DELETE', `/v1/opt-outs/${encodeURIComponent('+33698765432')}`, { key: test })).toMatchObject({ status: 200 });
    expect(lastCall()).toMatchObject({ rpc: 'remove', req: { mode: 'MODE_TEST' } });
    expect(gw.optOuts.some((o) => o.phoneNumber === '+33698765432' && o.mode === 'MODE_LIVE')).toBe(true);
  });

  it('when the credentials are missing, then 400 MISSING_AUTH_HEADERS and nothing reaches the service', async () => {
    const before = gw.optOutCalls.length;
    expect(await gw.call('GET', '/v1/opt-outs', { key: '' })).toMatchObject({
      status: 400,
      body: { error: { code: 'MISSING_AUTH_HEADERS' } },
    });
    expect(await gw.call('POST', '/v1/opt-outs', { key: '', body: { phone_number: '+33612345678' } })).toMatchObject({
      status: 400,
      body: { error: { code: 'MISSING_AUTH_HEADERS' } },
    });
    expect(gw.optOutCalls.length).toBe(before);
  });

  it('when /v1/opt-outs is called with PUT, then 405 METHOD_NOT_ALLOWED', async () => {
    expect(await gw.call('PUT', '/v1/opt-outs', { key: live, body: {} })).toMatchObject({
      status: 405,
      body: { error: { code: 'METHOD_NOT_ALLOWED' } },
    });
  });
});
