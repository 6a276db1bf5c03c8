import { AppError, NO_DEVICE_LIMITS } from '@smsgw/platform';
import { seal } from '@smsgw/e2e-envelope';
import type { message } from '@smsgw/proto';
import { checkMapping, CsvReader, parseCsv, previewRows, readCsv, type CsvFile } from '../src/use-cases/campaign-csv';
import { csrfOf } from './support/harness';
import { OWNERS, startFleetWorld, type FleetWorld } from './support/fleet-world';

const file = (text: string): CsvFile => {
  const parsed = parseCsv(text);
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed;
};

describe('a campaign file', () => {
  it('when fields are quoted, then separators, doubled quotes and line breaks stay in the field, and lines are counted as in the file', () => {
    const f = file(
      'phone,name,note\r\n+33612345678,"Dupont, Jean","He said ""hi"""\r\n+33612345679,"two\nlines",x\r\n\r\n+33612345670,Zoé,\r\n',
    );

    expect(f.headers).toEqual(['phone', 'name', 'note']);
    expect(f.rows).toEqual([
      { line: 2, cells: ['+33612345678', 'Dupont, Jean', 'He said "hi"'] },
      { line: 3, cells: ['+33612345679', 'two\nlines', 'x'] },
      { line: 6, cells: ['+33612345670', 'Zoé', ''] },
    ]);
  });

  it('when the file is semicolon-separated with a BOM, then the separator is found and the BOM is not in the first header', () => {
    const f = file('\uFEFFnuméro;prénom;ville\n+33612345678;Jean;Paris, France\n');

    expect(f.headers).toEqual(['numéro', 'prénom', 'ville']);
    expect(f.rows[0]!.cells).toEqual(['+33612345678', 'Jean', 'Paris, France']);
  });

  it('when the file is empty, headless, unclosed, named twice, too long or too large, then the error says so', () => {
    const error = (text: string) => (parseCsv(text) as { error?: string }).error;

    expect(error('')).toMatch(/empty/);
    expect(error('phone\n')).toMatch(/no rows/);
    expect(error('phone,name\n+33612345678,"Jean\n')).toMatch(/Line 2: a quoted field is never closed/);
    expect(error('phone,phone\n1,2\n')).toMatch(/“phone” twice/);
    expect(error(`phone\n${'+33612345678\n'.repeat(10_001)}`)).toMatch(/more than 10000 rows/);
    expect(error(`phone,text\n+33612345678,${'x'.repeat(2 * 1024 * 1024)}\n`)).toMatch(/over 2 MB/);
    expect(error(`phone\n${'+33612345678\n'.repeat(10_000)}`)).toBeUndefined();
  });
});

describe('reading a campaign file piece by piece, within bounds', () => {
  const sample =
    '\uFEFFphone;name;note\r\n+33612345678;"Dupont; Jean";"He said ""hi"""\r\n+33612345679;"two\nlines";x\r\n\r\n+33612345670;Zoé;\r\n';

  it('when the file comes in pieces of any size, then it reads as the whole file does', () => {
    const whole = parseCsv(sample);
    expect((whole as CsvFile).rows).toHaveLength(3);
    for (let size = 1; size <= sample.length; size++) {
      const reader = new CsvReader();
      for (let at = 0; at < sample.length; at += size) reader.feed(sample.slice(at, at + size));
      expect(reader.end()).toEqual(whole);
    }
  });

  it('when the header has more than 100 columns, then feed says so as soon as the 101st begins, without the rest of the file', () => {
    const reader = new CsvReader();
    const header = Array.from({ length: 80_000 }, (_, n) => `c${n}`).join(',');
    let fed = 0;
    for (let at = 0; at < header.length; at += 1000) {
      fed += 1;
      if (reader.feed(header.slice(at, at + 1000))) break;
    }
    expect(reader.error).toMatch(/The header row has more than 100 columns/);
    expect(fed).toBeLessThan(5);
    const widest = parseCsv(`${Array.from({ length: 100 }, (_, n) => `c${n}`).join(',')}\n${'1,'.repeat(99)}1\n`);
    expect((widest as CsvFile).headers).toHaveLength(100);
  });

  it('when a row is too wide, a cell too long or a column name too long, then the error names its line', () => {
    const error = (text: string) => (parseCsv(text) as { error?: string }).error;

    expect(error(`phone,name\n+33612345678,${'x,'.repeat(100)}\n`)).toMatch(/Line 2 has more than 100 columns/);
    expect(error(`phone,name\n+33612345678,ok\n+33612345679,${'x'.repeat(8801)}\n`)).toMatch(
      /Line 3, column 2: a cell holds more than 8800 characters/,
    );
    expect(error(`phone,name\n+33612345678,"${'x'.repeat(8800)}"\n`)).toBeUndefined();
    expect(error(`phone,${'n'.repeat(101)}\n+33612345678,x\n`)).toMatch(/column name is longer than 100 characters/);
    expect(error(`phone,"${'n'.repeat(300)}`)).toMatch(/column name is longer than 100 characters/);
  });

  it('when a stored file is read again and previewed, then the event loop turns between its pieces and its rows', async () => {
    const rows = Array.from({ length: 10_000 }, (_, n) => `+336${String(12_000_000 + n).padStart(8, '0')},Person ${n}`);
    let turns = 0;
    const ticking = setInterval(() => turns++, 0);
    const read = await readCsv(`phone,name\n${rows.join('\n')}\n`, 16 * 1024);
    const readingTurns = turns;
    const p = await previewRows(read as CsvFile, { phoneColumn: 'phone', template: 'Bonjour {{name}}' });
    clearInterval(ticking);

    expect((read as CsvFile).rows).toHaveLength(10_000);
    expect(readingTurns).toBeGreaterThan(1);
    expect(p.good).toHaveLength(10_000);
    expect(turns - readingTurns).toBeGreaterThan(1);
  });
});

describe('a campaign preview', () => {
  const f = file(
    [
      'phone,first,code',
      '+33612345678,Jean,A1',
      'not a number,Marie,B2',
      ',Paul,C3',
      '+33612345679,,D4',
      '+33612345678,Jean again,E5',
      '+33612345670,Łukasz,F6',
      `+33612345671,${'x'.repeat(1600)},G7`,
    ].join('\n'),
  );

  it('when the template names the columns, then the good rows get their text, parts and encoding, and every bad row its line and reason', async () => {
    const p = await previewRows(f, { phoneColumn: 'phone', template: 'Hello {{first}}, your code is {{ code }}.' });

    expect(p.good).toEqual([
      { line: 2, to: '+33612345678', text: 'Hello Jean, your code is A1.', parts: 1, encoding: 'GSM-7' },
      { line: 7, to: '+33612345670', text: 'Hello Łukasz, your code is F6.', parts: 1, encoding: 'UCS-2' },
    ]);
    expect(p.bad.map((b) => b.line)).toEqual([3, 4, 5, 6, 8]);
    expect(p.bad[0]!.reason).toMatch(/“not a number” is not a valid international number/);
    expect(p.bad[1]!.reason).toMatch(/No number in the column “phone”/);
    expect(p.bad[2]!.reason).toMatch(/column “first” is empty/);
    expect(p.bad[3]!.reason).toMatch(/already on line 2/);
    expect(p.bad[4]!.reason).toMatch(/at most 1600/);
  });

  it('when the text is long, then its parts are counted with the message service rule', async () => {
    const p = await previewRows(f, { phoneColumn: 'phone', template: `${'a'.repeat(150)} {{code}}` });

    expect(p.good[0]).toMatchObject({ parts: 1, encoding: 'GSM-7' });
    const q = await previewRows(f, { phoneColumn: 'phone', template: `${'a'.repeat(158)} {{code}}` });
    expect(q.good[0]).toMatchObject({ parts: 2, encoding: 'GSM-7' });
  });

  it('when a template repeats long cells, then each text is built no further than the limit and refused', async () => {
    const rows = Array.from({ length: 1000 }, (_, n) => `+336${String(12_000_000 + n).padStart(8, '0')},${'y'.repeat(1900)}`);
    const big = file(`phone,long\n${rows.join('\n')}\n`);
    const started = Date.now();
    const p = await previewRows(big, { phoneColumn: 'phone', template: '{{long}}'.repeat(1000) });

    expect(p.good).toEqual([]);
    expect(p.bad).toHaveLength(1000);
    expect(p.bad[0]!.reason).toBe('The text has more than 1600 characters: at most 1600.');
    // Each text stops past 3,200 units: about 5 million characters in all, not 1.9 billion.
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('when the mapping names a column the file lacks, or no text, then it is refused before any row', () => {
    expect(checkMapping(f, { phoneColumn: 'tel', template: 'x' })).toMatch(/phone numbers/);
    expect(checkMapping(f, { phoneColumn: 'phone', template: '  ' })).toMatch(/Write the text/);
    expect(checkMapping(f, { phoneColumn: 'phone', template: 'Hi {{last}}' })).toMatch(/no column “last”/);
    expect(checkMapping(f, { phoneColumn: 'phone', template: 'Hi {{first}}' })).toBeUndefined();
  });
});

describe('an encrypted campaign preview', () => {
  // Envelopes made with a small scrypt cost: the dashboard checks their shape only.
  const sealed = (text: string) => seal(text, 'phrase', { kdf: { ln: 10, r: 8, p: 1 } });
  const one = sealed('Bonjour Jean, votre code est A1');
  const two = sealed('Bonjour Marie');
  const f = file(
    [
      'phone;envelope',
      `+33612345678;${one}`,
      '+33612345679;Bonjour en clair',
      `+33612345670;${one.slice(0, one.lastIndexOf('$'))}`,
      `+33612345678;${two}`,
      `+33612345671;${two}`,
    ].join('\n'),
  );

  it('when the texts are marked encrypted, then each envelope is a message as it is, a row that is no envelope is refused, and the platform stands in for its parts', async () => {
    const p = await previewRows(f, { phoneColumn: 'phone', template: '{{envelope}}', encrypted: true });

    expect(p.good).toEqual([
      { line: 2, to: '+33612345678', text: one, parts: 1, encoding: 'GSM-7', encrypted: true },
      { line: 6, to: '+33612345671', text: two, parts: 1, encoding: 'GSM-7', encrypted: true },
    ]);
    expect(p.bad.map((b) => [b.line, b.reason])).toEqual([
      [3, 'The text is not an encrypted envelope ($smsgw-e2e$v1$…).'],
      [4, 'The text is not an encrypted envelope ($smsgw-e2e$v1$…).'],
      [5, '+33612345678 is already on line 2: each number gets the campaign once.'],
    ]);
  });

  it('when envelopes are sent in clear or the encrypted text adds to its column, then the row or the mapping is refused', async () => {
    const clear = await previewRows(f, { phoneColumn: 'phone', template: '{{envelope}}' });
    expect(clear.bad.find((b) => b.line === 2)!.reason).toBe('The text is an encrypted envelope: tick “The texts are encrypted”.');
    expect(checkMapping(f, { phoneColumn: 'phone', template: 'Hi {{envelope}}', encrypted: true })).toMatch(
      /column of the envelopes alone/,
    );
    expect(checkMapping(f, { phoneColumn: 'phone', template: ' {{ envelope }} ', encrypted: true })).toBeUndefined();
  });
});

/** The message service's campaign RPCs, played from a map: another client's campaign is CAMPAIGN_NOT_FOUND. */
const UPLOADS_PER_CLIENT = 2;

function campaignStandIn() {
  const campaigns = new Map<string, message.Campaign__Output>();
  const uploads = new Map<string, message.CampaignUpload__Output & { clientId: string }>();
  const ownUpload = (req: { clientId: string; uploadId: string }) => {
    const u = uploads.get(req.uploadId);
    if (!u || u.clientId !== req.clientId) throw new AppError('CAMPAIGN_UPLOAD_NOT_FOUND');
    return u;
  };
  /** AddCampaignMessages' calls so far, and the one refused (0: none). */
  const control = { calls: 0, refuseCall: 0 };
  const own = (req: { clientId: string; campaignId: string }) => {
    const c = campaigns.get(req.campaignId);
    if (!c || c.clientId !== req.clientId) throw new AppError('CAMPAIGN_NOT_FOUND');
    return c;
  };
  const handlers = {
    CreateCampaign: async (req: message.CreateCampaignRequest__Output) => {
      const c = {
        campaignId: `cmp_${campaigns.size + 1}`,
        clientId: req.clientId,
        mode: req.mode,
        name: req.name,
        status: 'running',
        createdAt: '2026-11-25T08:00:00.000Z',
        updatedAt: '2026-11-25T08:00:00.000Z',
        total: 0,
        queued: 0,
        held: 0,
        sent: 0,
        delivered: 0,
        failed: 0,
        cancelled: 0,
      };
      campaigns.set(c.campaignId, c);
      return c;
    },
    AddCampaignMessages: async (req: message.AddCampaignMessagesRequest__Output) => {
      if (++control.calls === control.refuseCall) throw new AppError('SERVICE_UNAVAILABLE');
      const c = own(req);
      c.total += req.messages.length;
      c.queued += req.messages.length;
      return { batchId: 'batch_1', messages: [], queuedAt: '', replayed: false };
    },
    GetCampaign: async (req: message.GetCampaignRequest__Output) => own(req),
    ListCampaigns: async (req: message.ListCampaignsRequest__Output) => {
      const mine = [...campaigns.values()].filter((c) => c.clientId === req.clientId).reverse();
      return { campaigns: mine, page: 1, perPage: 25, totalPages: 1, totalItems: mine.length };
    },
    PauseCampaign: async (req: message.GetCampaignRequest__Output) => Object.assign(own(req), { status: 'paused' }),
    ResumeCampaign: async (req: message.GetCampaignRequest__Output) => Object.assign(own(req), { status: 'running' }),
    CancelCampaign: async (req: message.GetCampaignRequest__Output) => Object.assign(own(req), { status: 'cancelled' }),
    // The files between upload and send: the message service's rules (its own tests check them for real), two a client here.
    StoreCampaignUpload: async (req: message.StoreCampaignUploadRequest__Output) => {
      const mine = [...uploads.values()].filter((u) => u.clientId === req.clientId);
      if (mine.length >= UPLOADS_PER_CLIENT) {
        const bytes = mine.reduce((sum, u) => sum + u.content.length, 0);
        throw new AppError('CAMPAIGN_UPLOADS_FULL', {
          details: [
            {
              uploads: mine.length,
              bytes,
              max_uploads: UPLOADS_PER_CLIENT,
              max_bytes: 6 * 1024 * 1024,
              room_at: '2026-11-25T09:30:00.000Z',
            },
          ],
        });
      }
      const u = {
        uploadId: `upl_${String(uploads.size + 1).padStart(26, '0')}`,
        clientId: req.clientId,
        name: req.name,
        fileName: req.fileName,
        headers: req.headers,
        rowCount: req.rowCount,
        byteSize: String(req.content.length),
        createdAt: '2026-11-25T08:30:00.000Z',
        expiresAt: '2026-11-25T09:30:00.000Z',
        content: req.content,
      };
      uploads.set(u.uploadId, u);
      return { ...u, content: Buffer.alloc(0) };
    },
    GetCampaignUpload: async (req: message.GetCampaignUploadRequest__Output) => {
      const u = ownUpload(req);
      return req.withContent ? u : { ...u, content: Buffer.alloc(0) };
    },
    ListCampaignUploads: async (req: message.ListCampaignUploadsRequest__Output) => {
      const mine = [...uploads.values()].filter((u) => u.clientId === req.clientId).reverse();
      const bytes = mine.reduce((sum, u) => sum + u.content.length, 0);
      return {
        uploads: mine.map((u) => ({ ...u, content: Buffer.alloc(0) })),
        maxUploads: UPLOADS_PER_CLIENT,
        maxBytes: String(6 * 1024 * 1024),
        bytes: String(bytes),
      };
    },
    TakeCampaignUpload: async (req: message.GetCampaignUploadRequest__Output) => {
      const u = ownUpload(req);
      uploads.delete(u.uploadId);
      return { ...u, content: Buffer.alloc(0) };
    },
  };
  return { campaigns, uploads, handlers, control };
}

describe('the campaign pages', () => {
  let world: FleetWorld;
  const standIn = campaignStandIn();

  beforeAll(async () => {
    world = await startFleetWorld({
      message: standIn.handlers,
    });
    world.devices.set('device_a2', { ...world.devices.get('device_a1')!, deviceId: 'device_a2', limits: { ...NO_DEVICE_LIMITS } });
  }, 60_000);

  afterAll(async () => {
    await world?.stop();
  });

  beforeEach(() => {
    for (const id of ['device_a1', 'device_a2']) world.devices.get(id)!.status = 'online';
    standIn.uploads.clear();
    world.clearCalls();
  });

  /** 250 good rows (lines 2 to 251), then a bad number (252) and an empty placeholder column (253). */
  const CSV = [
    'name;phone',
    ...Array.from({ length: 250 }, (_, n) => `Person ${n};+336${String(12_000_000 + n).padStart(8, '0')}`),
    'Nobody;12345',
    ';+33699999999',
  ].join('\n');

  async function uploaded(who: 'a' | 'b' = 'a') {
    const browser = await world.signedIn(who);
    await browser.get('/campaigns/new');
    const res = await browser.post('/campaigns/new', { name: 'Soldes', file_name: 'clients.csv', csv: CSV });
    expect(res.status).toBe(302);
    const uploadId = /^\/campaigns\/new\/([\w-]+)$/.exec(res.location)![1]!;
    return { browser, uploadId };
  }

  it('when a file is uploaded, mapped and previewed, then the message service keeps it (nothing in Redis) and the preview shows the messages and every bad row', async () => {
    const { browser, uploadId } = await uploaded();
    expect(world.calls.message.StoreCampaignUpload).toEqual([
      expect.objectContaining({
        clientId: OWNERS.a.clientId,
        name: 'Soldes',
        fileName: 'clients.csv',
        headers: ['name', 'phone'],
        rowCount: 252,
      }),
    ]);
    expect((world.calls.message.StoreCampaignUpload![0] as { content: Buffer }).content.toString('utf8')).toBe(CSV);
    expect(await world.dashboard.redis.keys('*campaign*')).toEqual([]);

    const mapping = await browser.get(`/campaigns/new/${uploadId}`);
    expect(mapping.text).toContain('<option value="phone" selected>');
    expect(mapping.text).toContain('252 rows');

    const refused = await browser.post(`/campaigns/new/${uploadId}/preview`, { phone_column: 'phone', text: 'Hi {{surname}}' });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('no column “surname”');

    const res = await browser.post(`/campaigns/new/${uploadId}/preview`, {
      phone_column: 'phone',
      text: 'Bonjour {{name}}, -20 % ce week-end',
    });
    expect(res.status).toBe(200);
    expect(res.text).toContain('data-good="250"');
    expect(res.text).toContain('<td>+33612000000</td><td class="text">Bonjour Person 0, -20 % ce week-end</td><td>1</td><td>GSM-7</td>');
    expect((res.text.match(/<tr><td>\d+<\/td><td>\+/g) ?? []).length).toBe(10);
    expect(res.text).toMatch(/<tr data-line="252"><td>252<\/td><td>“12345” is not a valid/);
    expect(res.text).toMatch(/<tr data-line="253"><td>253<\/td><td>The column “name” is empty/);
    expect(world.calls.message.CreateCampaign).toBeUndefined();
  });

  it('when it is sent, then the campaign is created and the good rows go in batches of 100 to the fleet (no phone chosen), once', async () => {
    const { browser, uploadId } = await uploaded();
    await browser.post(`/campaigns/new/${uploadId}/preview`, { phone_column: 'phone', text: 'Bonjour {{name}}' });

    const res = await browser.post(`/campaigns/new/${uploadId}/send`, { phone_column: 'phone', text: 'Bonjour {{name}}' });

    expect(res.status).toBe(302);
    const campaignId = res.location.split('/').pop()!;
    expect(world.calls.message.CreateCampaign).toEqual([
      expect.objectContaining({ clientId: OWNERS.a.clientId, name: 'Soldes', mode: 'MODE_LIVE' }),
    ]);
    const batches = world.calls.message.AddCampaignMessages as message.AddCampaignMessagesRequest__Output[];
    expect(batches.map((b) => b.messages.length)).toEqual([100, 100, 50]);
    expect(batches.every((b) => b.campaignId === campaignId && b.fleet && b.deviceIds.length === 1)).toBe(true);
    expect(batches[0]!.messages[0]).toMatchObject({ to: '+33612000000', text: 'Bonjour Person 0' });
    expect(new Set(batches.flatMap((b) => b.messages.map((m) => m.to))).size).toBe(250);

    const again = await browser.post(`/campaigns/new/${uploadId}/send`, { phone_column: 'phone', text: 'Bonjour {{name}}' });
    expect(again.status).toBe(400);
    expect(again.text).toContain('expired');
    expect(world.calls.message.CreateCampaign).toHaveLength(1);

    const page = await browser.get(res.location);
    expect(page.text).toContain('data-count="queued">250<');
    expect(page.text).toContain('<progress id="c-progress" max="250" value="0">');
    expect(page.text).toContain('data-refresh="2000"');
    const list = await browser.get('/campaigns');
    expect(list.text).toContain(`<a href="/campaigns/${campaignId}">Soldes</a>`);
  });

  it('when a file of envelopes is sent as encrypted texts, then the preview says so and each message goes to the message service as its envelope, untouched', async () => {
    const envelopes = Array.from({ length: 3 }, (_, n) => seal(`Texte confidentiel ${n}`, 'phrase', { kdf: { ln: 10, r: 8, p: 1 } }));
    const browser = await world.signedIn('a');
    await browser.get('/campaigns/new');
    const csv = ['phone;sealed', ...envelopes.map((e, n) => `+3361200000${n};${e}`)].join('\n');
    const upload = await browser.post('/campaigns/new', { name: 'Chiffrée', file_name: 'sealed.csv', csv });
    const uploadId = /^\/campaigns\/new\/([\w-]+)$/.exec(upload.location)![1]!;
    const form = { phone_column: 'phone', text: '{{sealed}}', encrypted: 'yes' };

    const preview = await browser.post(`/campaigns/new/${uploadId}/preview`, form);
    expect(preview.status).toBe(200);
    expect(preview.text).toContain('data-good="3"');
    expect(preview.text).toContain('<td colspan="2">encrypted: the phone knows</td>');
    expect(preview.text).toContain('<input type="hidden" name="encrypted" value="yes">');
    const res = await browser.post(`/campaigns/new/${uploadId}/send`, form);

    expect(res.status).toBe(302);
    const batches = world.calls.message.AddCampaignMessages as message.AddCampaignMessagesRequest__Output[];
    expect(batches.flatMap((b) => b.messages.map((m) => [m.to, m.text]))).toEqual(envelopes.map((e, n) => [`+3361200000${n}`, e]));
  });

  it('when a batch is refused half-way, then the campaign page says how many were stored', async () => {
    const { browser, uploadId } = await uploaded();
    standIn.control.refuseCall = standIn.control.calls + 2;
    try {
      await browser.get(`/campaigns/new/${uploadId}`);
      const res = await browser.post(`/campaigns/new/${uploadId}/send`, { phone_column: 'phone', text: 'Bonjour {{name}}' });

      expect(res.status).toBe(502);
      expect(res.text).toContain('Only 100 of 250 messages were stored (from line 102 on, none)');
      expect(res.text).toContain('data-count="queued">100<');
    } finally {
      standIn.control.refuseCall = 0;
    }
  });

  it('when no phone is online, then the send is refused before anything is stored', async () => {
    for (const id of ['device_a1', 'device_a2']) world.devices.get(id)!.status = 'offline';
    const { browser, uploadId } = await uploaded();
    await browser.post(`/campaigns/new/${uploadId}/preview`, { phone_column: 'phone', text: 'Bonjour {{name}}' });

    const res = await browser.post(`/campaigns/new/${uploadId}/send`, { phone_column: 'phone', text: 'Bonjour {{name}}' });

    expect(res.status).toBe(400);
    expect(res.text).toContain('None of your phones is online');
    expect(world.calls.message.CreateCampaign).toBeUndefined();
    expect(world.calls.message.AddCampaignMessages).toBeUndefined();
  });

  it('when a campaign is paused, resumed and cancelled, then each is asked of the message service and the buttons follow its status', async () => {
    const { browser } = await uploaded();
    const c = await standIn.handlers.CreateCampaign({
      clientId: OWNERS.a.clientId,
      name: 'Rappel',
    } as message.CreateCampaignRequest__Output);
    let page = await browser.get(`/campaigns/${c.campaignId}`);
    expect(page.text).toContain(`action="/campaigns/${c.campaignId}/pause"`);

    expect((await browser.post(`/campaigns/${c.campaignId}/pause`)).location).toBe(`/campaigns/${c.campaignId}`);
    page = await browser.get(`/campaigns/${c.campaignId}`);
    expect(page.text).toContain(`action="/campaigns/${c.campaignId}/resume"`);
    expect(page.text).not.toContain(`action="/campaigns/${c.campaignId}/pause"`);
    await browser.post(`/campaigns/${c.campaignId}/resume`);
    page = await browser.get(`/campaigns/${c.campaignId}`);
    expect(page.text).toMatch(/data-confirm="Cancel this campaign\?/);
    await browser.post(`/campaigns/${c.campaignId}/cancel`);
    page = await browser.get(`/campaigns/${c.campaignId}`);
    expect(page.text).toContain('data-campaign-status>cancelled<');
    expect(page.text).not.toContain('/cancel"');
    expect(world.calls.message.PauseCampaign).toHaveLength(1);
    expect(world.calls.message.ResumeCampaign).toHaveLength(1);
    expect(world.calls.message.CancelCampaign).toEqual([
      expect.objectContaining({ clientId: OWNERS.a.clientId, campaignId: c.campaignId }),
    ]);
  });

  it('when a form has no valid CSRF token, then nothing is stored, paused or sent', async () => {
    const { browser, uploadId } = await uploaded();
    const c = await standIn.handlers.CreateCampaign({ clientId: OWNERS.a.clientId, name: 'X' } as message.CreateCampaignRequest__Output);
    world.clearCalls();

    expect((await browser.post('/campaigns/new', { _csrf: 'forged', name: 'X', csv: CSV })).status).toBe(403);
    expect((await browser.post(`/campaigns/${c.campaignId}/pause`, { _csrf: 'forged' })).status).toBe(403);
    expect((await browser.post(`/campaigns/new/${uploadId}/send`, { _csrf: 'forged', phone_column: 'phone', text: 'x' })).status).toBe(403);
    expect(world.calls.message).toEqual({});
  });

  it('when the account already keeps its cap of files, then the next upload is refused with 429 and why, the Campaigns page lists the waiting files, and discarding one makes room', async () => {
    const first = await uploaded();
    await uploaded();
    const browser = first.browser;
    await browser.get('/campaigns/new');

    const refused = await browser.post('/campaigns/new', { name: 'Encore', file_name: 'more.csv', csv: CSV });
    expect(refused.status).toBe(429);
    expect(refused.text).toContain('Your account already has 2 files waiting');
    expect(refused.text).toContain('keeps at most 2 files');
    expect(refused.text).toContain('The oldest expires at 09:30 UTC');

    const list = await browser.get('/campaigns');
    expect(list.text).toContain('Files waiting to be sent: 2 of 2');
    expect(list.text).toContain(`<a href="/campaigns/new/${first.uploadId}">Soldes</a>`);
    const discarded = await browser.post(`/campaigns/new/${first.uploadId}/discard`);
    expect(discarded.location).toBe('/campaigns');
    expect((await browser.get(`/campaigns/new/${first.uploadId}`)).status).toBe(404);
    await browser.get('/campaigns/new');
    expect((await browser.post('/campaigns/new', { name: 'Encore', file_name: 'more.csv', csv: CSV })).status).toBe(302);
  });

  it('when a file has 80,000 columns, then it is refused at once, before the rest of it is read, and nothing is stored', async () => {
    const browser = await world.signedIn('a');
    await browser.get('/campaigns/new');
    const header = Array.from({ length: 80_000 }, (_, n) => `c${n}`).join(',');
    const started = Date.now();

    const res = await browser.post('/campaigns/new', { name: 'Large', csv: `${header}\n${'1,'.repeat(79_999)}1\n` });

    expect(res.status).toBe(400);
    expect(res.text).toContain('The header row has more than 100 columns');
    expect(Date.now() - started).toBeLessThan(1000);
    expect(world.calls.message.StoreCampaignUpload).toBeUndefined();
  });

  it('when a file is over 2 MB, then 413 says so and nothing is stored', async () => {
    const browser = await world.signedIn('a');
    await browser.get('/campaigns/new');
    const rows = Array.from({ length: 9000 }, (_, n) => `+336${String(12_000_000 + n).padStart(8, '0')};${'x'.repeat(240)}`);

    const res = await browser.post('/campaigns/new', { name: 'Big', csv: `phone;note\n${rows.join('\n')}\n` });

    expect(res.status).toBe(413);
    expect(res.text).toContain('over 2 MB');
    expect(world.calls.message.StoreCampaignUpload).toBeUndefined();
  });

  it("when another client's campaign or upload is asked for, then it is not found", async () => {
    const { uploadId } = await uploaded('a');
    const c = await standIn.handlers.CreateCampaign({
      clientId: OWNERS.a.clientId,
      name: 'Secret',
    } as message.CreateCampaignRequest__Output);
    const other = await world.signedIn('b');

    const page = await other.get(`/campaigns/${c.campaignId}`);
    expect(page.status).toBe(404);
    expect(page.text).not.toContain('Secret');
    await other.get('/campaigns');
    expect((await other.post(`/campaigns/${c.campaignId}/cancel`)).status).toBe(404);
    expect(standIn.campaigns.get(c.campaignId)!.status).toBe('running');
    expect((await other.get(`/campaigns/new/${uploadId}`)).status).toBe(404);
    await other.post(`/campaigns/new/${uploadId}/discard`);
    expect(standIn.uploads.has(uploadId)).toBe(true);
    const list = await other.get('/campaigns');
    expect(list.text).not.toContain('Secret');
    expect(csrfOf(list.text)).toBeTruthy();
  });
});
