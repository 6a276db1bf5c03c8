import { apiKey, CLIENT, FleetGateway, storedReceived, T0 } from './support/fleet-gateway';

/** The inbox (received SMS, issue 24) and the stats' received count, through the gateway's real app on real Redis. */
describe('the inbox: GET /v1/sms/inbox and /v1/sms/inbox/:id', () => {
  const gw = new FleetGateway();
  const live = apiKey('live');
  const test = apiKey('test');
  const first = storedReceived({ from: '+33698765432', deviceId: 'device_A', sim: 2, text: 'Oui, je confirme' });
  const second = storedReceived({ from: 'BANQUE', deviceId: 'device_B', text: 'Votre code : 1234' });
  const inTest = storedReceived({ mode: 'MODE_TEST', text: 'simulé' });
  const elsewhere = storedReceived({ clientId: 'client_1736935200000999999', text: 'pas à vous' });

  beforeAll(async () => {
    await gw.start();
    gw.received = [first, second, inTest, elsewhere];
  });

  afterAll(() => gw.stop());

  const get = (path: string, key = live) => gw.call('GET', path, { key });

  it('when the inbox is listed with a live key, then the live SMS of the client come in the history envelope, each record with sim null when unknown', async () => {
    const res = await get('/v1/sms/inbox');

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      success: true,
      data: [
        {
          id: first.id,
          from: '+33698765432',
          device_id: 'device_A',
          sim: 2,
          message: 'Oui, je confirme',
          received_at: T0,
          created_at: T0,
          encrypted: false,
        },
        {
          id: second.id,
          from: 'BANQUE',
          device_id: 'device_B',
          sim: null,
          message: 'Votre code : 1234',
          received_at: T0,
          created_at: T0,
          encrypted: false,
        },
      ],
      pagination: { current_page: 1, per_page: 50, total_pages: 1, total_items: 2 },
    });
    expect(gw.inboxCalls.at(-1)).toEqual({
      clientId: CLIENT,
      mode: 'MODE_LIVE',
      page: 1,
      limit: 50,
      from: '',
      fromDate: '',
      toDate: '',
      deviceId: '',
      search: '',
    });
  });

  it('when filters are given, then they reach the message service: a + number normalised, a sender name as given, dates, device, search', async () => {
    const byNumber = await get(
      `/v1/sms/inbox?from=${encodeURIComponent('+33 6 98 76 54 32')}&device_id=device_A&from_date=2030-01-01&to_date=2030-01-31&search=confirme&page=1&limit=10`,
    );
    expect(byNumber.body.data).toEqual([expect.objectContaining({ id: first.id })]);
    expect(gw.inboxCalls.at(-1)).toMatchObject({
      from: '+33698765432',
      deviceId: 'device_A',
      fromDate: '2030-01-01',
      toDate: '2030-01-31',
      search: 'confirme',
      page: 1,
      limit: 10,
    });

    const byName = await get('/v1/sms/inbox?from=BANQUE');
    expect(byName.body.data).toEqual([expect.objectContaining({ id: second.id })]);
    expect(gw.inboxCalls.at(-1)).toMatchObject({ from: 'BANQUE' });
  });

  it('when page 2 of 1-item pages is asked, then the pagination says so', async () => {
    const res = await get('/v1/sms/inbox?page=2&limit=1');
    expect(res.body).toMatchObject({
      data: [expect.objectContaining({ id: second.id })],
      pagination: { current_page: 2, per_page: 1, total_pages: 2, total_items: 2 },
    });
  });

  it.each([
    ['page=abc', 'page'],
    ['page=-1', 'page'],
    ['limit=1.5', 'limit'],
  ])('when the query has %s, then 400 INVALID_PAGINATION names %s and the service is not called', async (query, field) => {
    const before = gw.inboxCalls.length;
    const res = await get(`/v1/sms/inbox?${query}`);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      success: false,
      error: { code: 'INVALID_PAGINATION', details: [{ field, code: 'INVALID_PAGINATION' }] },
    });
    expect(gw.inboxCalls.length).toBe(before);
  });

  it("when the message service refuses the limit or a date, then its code is the answer (as the history's)", async () => {
    expect(await get('/v1/sms/inbox?limit=101')).toMatchObject({ status: 400, body: { error: { code: 'INVALID_PAGINATION' } } });
    expect(await get('/v1/sms/inbox?from_date=hier')).toMatchObject({ status: 400, body: { error: { code: 'INVALID_DATE' } } });
  });

  it('when from has a + but is no number, or a filter holds U+0000, then 400 INVALID_PHONE_NUMBER or INVALID_CHARACTER without a call', async () => {
    const before = gw.inboxCalls.length;
    expect(await get('/v1/sms/inbox?from=%2B12')).toMatchObject({
      status: 400,
      body: { error: { code: 'INVALID_PHONE_NUMBER', details: [{ field: 'from' }] } },
    });
    expect(await get('/v1/sms/inbox?search=a%00b')).toMatchObject({ status: 400, body: { error: { code: 'INVALID_CHARACTER' } } });
    expect(gw.inboxCalls.length).toBe(before);
  });

  it('when one received SMS is asked for, then it comes as {success, ...the record}', async () => {
    const res = await get(`/v1/sms/inbox/${first.id}`);
    expect(res).toEqual({
      status: 200,
      body: {
        success: true,
        id: first.id,
        from: '+33698765432',
        device_id: 'device_A',
        sim: 2,
        message: 'Oui, je confirme',
        received_at: T0,
        created_at: T0,
        encrypted: false,
      },
    });
    expect(gw.receivedCalls.at(-1)).toEqual({ clientId: CLIENT, mode: 'MODE_LIVE', id: first.id });
  });

  it.each(['msg_01JD3Z8Q6V5N4W2K9T7R1B0C3E', 'rcv_short', 'rcv_01jd3z8q6v5n4w2k9t7r1b0c3e', 'nope'])(
    'when the id %s is not an rcv_ id, then 404 RECEIVED_NOT_FOUND and the service is not called',
    async (id) => {
      const before = gw.receivedCalls.length;
      const res = await get(`/v1/sms/inbox/${id}`);
      expect(res).toMatchObject({
        status: 404,
        body: { success: false, error: { code: 'RECEIVED_NOT_FOUND', message: 'SMS reçu introuvable.' } },
      });
      expect(gw.receivedCalls.length).toBe(before);
    },
  );

  it("when another client's id or the other mode's is asked for, then 404 RECEIVED_NOT_FOUND", async () => {
    expect(await get(`/v1/sms/inbox/${elsewhere.id}`)).toMatchObject({ status: 404, body: { error: { code: 'RECEIVED_NOT_FOUND' } } });
    expect(await get(`/v1/sms/inbox/${inTest.id}`)).toMatchObject({ status: 404, body: { error: { code: 'RECEIVED_NOT_FOUND' } } });
    expect(await get(`/v1/sms/inbox/${first.id}`, test)).toMatchObject({ status: 404, body: { error: { code: 'RECEIVED_NOT_FOUND' } } });
  });

  it('when a test key lists the inbox or reads a test record, then the service is asked in test mode and only test records come', async () => {
    const list = await get('/v1/sms/inbox', test);
    expect(gw.inboxCalls.at(-1)).toMatchObject({ clientId: CLIENT, mode: 'MODE_TEST' });
    expect(list.body.data).toEqual([expect.objectContaining({ id: inTest.id, message: 'simulé' })]);
    expect(await get(`/v1/sms/inbox/${inTest.id}`, test)).toMatchObject({ status: 200, body: { id: inTest.id } });
    expect(gw.receivedCalls.at(-1)).toMatchObject({ mode: 'MODE_TEST' });
  });

  it('when the credentials are missing, then 400 MISSING_AUTH_HEADERS and nothing is listed', async () => {
    const before = gw.inboxCalls.length;
    expect(await gw.call('GET', '/v1/sms/inbox', { key: '' })).toMatchObject({
      status: 400,
      body: { error: { code: 'MISSING_AUTH_HEADERS' } },
    });
    expect(gw.inboxCalls.length).toBe(before);
  });

  it('when the stats are asked, then received is there in total and per day, next to sent, delivered and failed', async () => {
    const res = await get('/v1/sms/stats');
    expect(res.status).toBe(200);
    expect(res.body.stats).toMatchObject({
      total_sent: 4,
      received: 2,
      by_day: [
        { date: '2030-01-14', sent: 2, delivered: 1, failed: 1, received: 0 },
        { date: '2030-01-15', sent: 2, delivered: 1, failed: 1, received: 2 },
      ],
    });
    const inTestMode = await get('/v1/sms/stats', test);
    expect(inTestMode.body.stats).toMatchObject({ received: 1 });
  });
});
