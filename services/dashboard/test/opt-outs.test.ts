import { AppError } from '@smsgw/platform';
import type { message } from '@smsgw/proto';
import { startFleetWorld, type FleetWorld } from './support/fleet-world';

type Entry = message.OptOut__Output & { clientId: string; mode: string };
const entry = (clientId: string, phoneNumber: string, source: string, keyword = '', mode = 'MODE_LIVE'): Entry => ({
  clientId,
  mode,
  phoneNumber,
  source,
  keyword,
  createdAt: '2026-11-25T08:00:00.000Z',
});

/** The service's refusal the stand-in plays for a start keyword that is also an opt-out keyword. */
const BOTH = 'Un mot-clé ne peut être dans les deux listes.';

/**
 * The suppression list page: the list (ListOptOuts, live), adding (AddOptOut, source dashboard,
 * the number checked as the API checks a `to`), removing (RemoveOptOut), and the keyword settings
 * (Get/SetOptOutSettings) with the service's VALIDATION_ERROR shown at its fields (stand-ins).
 */
describe('the opt-outs page', () => {
  let world: FleetWorld;
  let list: Entry[] = [];
  const settings = new Map<string, message.OptOutSettings__Output>();

  beforeAll(async () => {
    world = await startFleetWorld({
      message: {
        ListOptOuts: async (req: message.ListOptOutsRequest__Output) => {
          const all = list.filter((o) => o.clientId === req.clientId && o.mode === req.mode);
          const optOuts = all.slice((req.page - 1) * req.limit, req.page * req.limit);
          return { optOuts, page: req.page, perPage: req.limit, totalItems: all.length, totalPages: Math.ceil(all.length / req.limit) };
        },
        AddOptOut: async (req: message.OptOutRequest__Output) => {
          const e = entry(req.clientId, req.phoneNumber, req.source, '', req.mode);
          list.unshift(e);
          return e;
        },
        RemoveOptOut: async (req: message.OptOutRequest__Output) => {
          const at = list.findIndex((o) => o.clientId === req.clientId && o.mode === req.mode && o.phoneNumber === req.phoneNumber);
          if (at < 0) throw new AppError('OPT_OUT_NOT_FOUND');
          list.splice(at, 1);
          return { removed: true };
        },
        GetOptOutSettings: async (req: message.GetOptOutSettingsRequest__Output) => settings.get(req.clientId)!,
        SetOptOutSettings: async (req: message.OptOutSettings__Output) => {
          const both = req.startKeywords.filter((k) => req.optOutKeywords.includes(k));
          if (both.length > 0)
            throw new AppError('VALIDATION_ERROR', { details: [{ field: 'start_keywords[0]', code: 'VALIDATION_ERROR', message: BOTH }] });
          settings.set(req.clientId, { ...req });
          return req;
        },
      },
    });
  }, 60_000);

  afterAll(async () => {
    await world?.stop();
  });

  beforeEach(() => {
    list = [
      entry('client_a', '+33611111111', 'keyword', 'STOP'),
      entry('client_a', '+33622222222', 'api'),
      entry('client_a', '+33633333333', 'keyword', 'STOP', 'MODE_TEST'),
      entry('client_b', '+33699999999', 'dashboard'),
    ];
    for (const clientId of ['client_a', 'client_b'])
      settings.set(clientId, {
        clientId,
        optOutKeywords: ['STOP', 'STOPALL', 'UNSUBSCRIBE', 'ARRET'],
        startKeywords: ['START'],
        otpIgnoresOptOut: true,
      });
    world.clearCalls();
  });

  const calls = <T>(name: string) => (world.calls.message[name] ?? []) as T[];

  it("when the page is opened, then it lists the client's live numbers with how they came, and the keyword settings", async () => {
    const browser = await world.signedIn('a');

    const res = await browser.get('/opt-outs');

    expect(res.status).toBe(200);
    expect([...res.text.matchAll(/data-opt-out="([^"]+)"/g)].map((m) => m[1])).toEqual(['+33611111111', '+33622222222']);
    expect(res.text).toContain('sent a keyword (<code>STOP</code>)');
    expect(res.text).not.toContain('+33699999999');
    expect(res.text).toContain('href="/opt-outs" aria-current="page"');
    expect(res.text).toMatch(/name="opt_out_keywords" value="STOP, STOPALL, UNSUBSCRIBE, ARRET"/);
    expect(res.text).toMatch(/name="otp_ignores_opt_out" value="on" checked/);
    expect(calls<message.ListOptOutsRequest__Output>('ListOptOuts')).toEqual([
      { clientId: 'client_a', mode: 'MODE_LIVE', page: 1, limit: 50 },
    ]);
    expect(calls<message.GetOptOutSettingsRequest__Output>('GetOptOutSettings')).toEqual([{ clientId: 'client_a' }]);
  });

  it('when a page number is given, then that page is asked for and the pager links to its neighbours', async () => {
    list = Array.from({ length: 120 }, (_, i) => entry('client_a', `+336${String(10000000 + i)}`, 'api'));
    const browser = await world.signedIn('a');

    const res = await browser.get('/opt-outs?page=2');

    expect(calls<message.ListOptOutsRequest__Output>('ListOptOuts')[0]!.page).toBe(2);
    expect(res.text).toContain('href="/opt-outs?page=1" rel="prev"');
    expect(res.text).toContain('href="/opt-outs?page=3" rel="next"');
  });

  it('when a number is added as typed with spaces, then AddOptOut gets its E.164 form with source dashboard, and the page says so', async () => {
    const browser = await world.signedIn('a');
    await browser.get('/opt-outs');

    const posted = await browser.post('/opt-outs', { phone_number: '+33 6 44 44 44 44' });
    const after = await browser.get(posted.location);

    expect(posted.status).toBe(302);
    expect(calls<message.OptOutRequest__Output>('AddOptOut')).toEqual([
      { clientId: 'client_a', mode: 'MODE_LIVE', phoneNumber: '+33644444444', source: 'dashboard' },
    ]);
    expect(after.text).toContain('+33644444444 is on the list');
    expect(after.text).toContain('data-opt-out="+33644444444"');
  });

  it('when the number is not a valid international one, then it is refused at its field and nothing is added', async () => {
    const browser = await world.signedIn('a');
    await browser.get('/opt-outs');

    const local = await browser.post('/opt-outs', { phone_number: '0612345678' });
    const invalid = await browser.post('/opt-outs', { phone_number: '+3312' });

    expect(local.status).toBe(400);
    expect(local.text).toMatch(/data-error="phone_number">This is not a valid international number/);
    expect(local.text).toMatch(/name="phone_number" value="0612345678"/);
    expect(invalid.status).toBe(400);
    expect(calls('AddOptOut')).toEqual([]);
  });

  it("when a number is removed, then RemoveOptOut gets it; one not on the list (or another client's) says so and stays", async () => {
    const browser = await world.signedIn('a');
    await browser.get('/opt-outs');

    const removed = await browser.post('/opt-outs/remove', { phone_number: '+33622222222' });
    const removedPage = await browser.get(removed.location);
    const foreign = await browser.post('/opt-outs/remove', { phone_number: '+33699999999' });
    const foreignPage = await browser.get(foreign.location);

    expect(calls<message.OptOutRequest__Output>('RemoveOptOut')[0]).toMatchObject({
      clientId: 'client_a',
      mode: 'MODE_LIVE',
      phoneNumber: '+33622222222',
    });
    expect(removedPage.text).toContain('+33622222222 is off the list');
    expect(removedPage.text).not.toContain('data-opt-out="+33622222222"');
    expect(foreignPage.text).toContain('+33699999999 was not on the list.');
    expect(list.some((o) => o.phoneNumber === '+33699999999')).toBe(true);
  });

  it('when the keyword settings are saved, then SetOptOutSettings gets the two lists upper-cased without accents, and the checkbox', async () => {
    const browser = await world.signedIn('a');
    await browser.get('/opt-outs');

    const posted = await browser.post('/opt-outs/settings', {
      opt_out_keywords: 'stop, arrêt ,  fin  du service,',
      start_keywords: 'start',
    });
    const after = await browser.get(posted.location);

    expect(posted.status).toBe(302);
    expect(calls('SetOptOutSettings')).toEqual([
      { clientId: 'client_a', optOutKeywords: ['STOP', 'ARRET', 'FIN DU SERVICE'], startKeywords: ['START'], otpIgnoresOptOut: false },
    ]);
    expect(after.text).toContain('The keywords are saved');
    expect(after.text).not.toMatch(/name="otp_ignores_opt_out" value="on" checked/);
  });

  it('when the service refuses the settings (VALIDATION_ERROR), then its reason is shown at the field it names and what was typed is given back', async () => {
    const browser = await world.signedIn('a');
    await browser.get('/opt-outs');

    const res = await browser.post('/opt-outs/settings', { opt_out_keywords: 'STOP', start_keywords: 'stop', otp_ignores_opt_out: 'on' });

    expect(res.status).toBe(400);
    expect(res.text).toContain(`data-error="start_keywords">${BOTH}`);
    expect(res.text).toMatch(/name="start_keywords" value="stop"/);
    expect(settings.get('client_a')!.startKeywords).toEqual(['START']);
  });

  it('when a form comes without its CSRF token, then it is refused and nothing changes', async () => {
    const browser = await world.signedIn('a');
    await browser.get('/opt-outs');

    const add = await browser.post('/opt-outs', { phone_number: '+33644444444', _csrf: 'forged' });
    const remove = await browser.post('/opt-outs/remove', { phone_number: '+33611111111', _csrf: 'forged' });
    const save = await browser.post('/opt-outs/settings', { opt_out_keywords: 'X', start_keywords: 'Y', _csrf: 'forged' });

    expect([add.status, remove.status, save.status]).toEqual([403, 403, 403]);
    expect(calls('AddOptOut')).toEqual([]);
    expect(calls('RemoveOptOut')).toEqual([]);
    expect(calls('SetOptOutSettings')).toEqual([]);
  });
});
