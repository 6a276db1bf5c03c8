import type { message } from '@smsgw/proto';
import { newClientId } from './support/fleet';
import { startMessageService, type RunningService } from './support/service';

const MIB = 1024 * 1024;

describe('campaign files kept between upload and send, over real gRPC and Postgres', () => {
  let svc: RunningService;

  beforeAll(async () => {
    svc = await startMessageService({ CAMPAIGN_UPLOADS_PER_CLIENT: '3', CAMPAIGN_UPLOAD_BYTES_PER_CLIENT: String(4 * MIB) });
  });

  afterAll(async () => {
    await svc?.stop();
  });

  const store = (clientId: string, content: Buffer, mode: 'MODE_LIVE' | 'MODE_TEST' = 'MODE_LIVE') =>
    svc.client.storeCampaignUpload({
      clientId,
      mode,
      name: 'Soldes',
      fileName: 'clients.csv',
      headers: ['phone', 'name'],
      rowCount: 2,
      content,
    });
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (e: { code?: string; details?: Record<string, unknown>[] }) => e,
    );
  const csv = 'phone,name\n+33612345678,Ana\n+33612345679,Bo\n';

  it('when a file is stored, then it is read back with its content only when asked, listed, and taken once', async () => {
    const client = newClientId();
    const stored = await store(client, Buffer.from(csv));
    expect(stored).toMatchObject({
      name: 'Soldes',
      fileName: 'clients.csv',
      headers: ['phone', 'name'],
      rowCount: 2,
      byteSize: String(csv.length),
    });
    expect(stored.uploadId).toMatch(/^upl_[0-9A-Z]{26}$/);
    const ttl = Date.parse(stored.expiresAt) - Date.parse(stored.createdAt);
    expect(ttl).toBe(3600_000);
    expect(stored.content).toHaveLength(0);

    const key = { clientId: client, mode: 'MODE_LIVE' as const, uploadId: stored.uploadId };
    expect((await svc.client.getCampaignUpload({ ...key, withContent: false })).content).toHaveLength(0);
    expect((await svc.client.getCampaignUpload({ ...key, withContent: true })).content.toString('utf8')).toBe(csv);
    const listed = await svc.client.listCampaignUploads({ clientId: client, mode: 'MODE_LIVE' });
    expect(listed).toMatchObject({ maxUploads: 3, maxBytes: String(4 * MIB), bytes: String(csv.length) });
    expect(listed.uploads.map((u: message.CampaignUpload__Output) => u.uploadId)).toEqual([stored.uploadId]);

    expect((await svc.client.takeCampaignUpload(key)).uploadId).toBe(stored.uploadId);
    expect((await failure(svc.client.takeCampaignUpload(key)))?.code).toBe('CAMPAIGN_UPLOAD_NOT_FOUND');
    expect((await failure(svc.client.getCampaignUpload({ ...key, withContent: false })))?.code).toBe('CAMPAIGN_UPLOAD_NOT_FOUND');
  });

  it('when another client, the other mode or a made-up id asks for a file, then it is not found, and not taken', async () => {
    const client = newClientId();
    const { uploadId } = await store(client, Buffer.from(csv));
    for (const key of [
      { clientId: newClientId(), mode: 'MODE_LIVE' as const, uploadId },
      { clientId: client, mode: 'MODE_TEST' as const, uploadId },
      { clientId: client, mode: 'MODE_LIVE' as const, uploadId: 'upl_x' },
    ]) {
      expect((await failure(svc.client.getCampaignUpload({ ...key, withContent: true })))?.code).toBe('CAMPAIGN_UPLOAD_NOT_FOUND');
      expect((await failure(svc.client.takeCampaignUpload(key)))?.code).toBe('CAMPAIGN_UPLOAD_NOT_FOUND');
    }
    expect((await svc.client.getCampaignUpload({ clientId: client, mode: 'MODE_LIVE', uploadId, withContent: false })).uploadId).toBe(
      uploadId,
    );
  });

  it('when a client reaches its cap of files or of bytes, then the next is refused with what it uses and when room comes, and a discard makes room', async () => {
    const client = newClientId();
    const [a] = [await store(client, Buffer.from(csv)), await store(client, Buffer.from(csv)), await store(client, Buffer.from(csv))];
    const refused = await failure(store(client, Buffer.from(csv)));
    expect(refused?.code).toBe('CAMPAIGN_UPLOADS_FULL');
    expect(refused?.details).toEqual([
      expect.objectContaining({ uploads: 3, bytes: 3 * csv.length, max_uploads: 3, max_bytes: 4 * MIB, room_at: a.expiresAt }),
    ]);
    // Another client, and the same client's other mode, have their own room.
    expect((await store(newClientId(), Buffer.from(csv))).uploadId).toMatch(/^upl_/);
    expect((await store(client, Buffer.from(csv), 'MODE_TEST')).uploadId).toMatch(/^upl_/);

    await svc.client.takeCampaignUpload({ clientId: client, mode: 'MODE_LIVE', uploadId: a.uploadId });
    expect((await store(client, Buffer.from(csv))).uploadId).toMatch(/^upl_/);

    const big = newClientId();
    await store(big, Buffer.alloc(2 * MIB, 'a'));
    expect((await failure(store(big, Buffer.alloc(2 * MIB + 1, 'a'))))?.code).toBe('VALIDATION_ERROR');
    expect((await failure(store(big, Buffer.alloc(2 * MIB, 'a'))))?.code).toBeUndefined();
    expect((await failure(store(big, Buffer.alloc(10, 'a'))))?.code).toBe('CAMPAIGN_UPLOADS_FULL');
  });

  it('when many uploads of one client come at once, then no more than its cap are kept', async () => {
    const client = newClientId();
    const results = await Promise.all(Array.from({ length: 10 }, () => failure(store(client, Buffer.from(csv)))));
    expect(results.filter((r) => r === undefined)).toHaveLength(3);
    expect(results.filter((r) => r?.code === 'CAMPAIGN_UPLOADS_FULL')).toHaveLength(7);
  });

  it('when a file has expired, then it is not found, it no longer counts, and the retention deletes it', async () => {
    const client = newClientId();
    const { uploadId } = await store(client, Buffer.from(csv));
    await svc.pool.query(`UPDATE campaign_uploads SET expires_at = now() - interval '1 second' WHERE upload_id = $1`, [uploadId]);
    expect((await failure(svc.client.getCampaignUpload({ clientId: client, mode: 'MODE_LIVE', uploadId, withContent: false })))?.code).toBe(
      'CAMPAIGN_UPLOAD_NOT_FOUND',
    );
    expect((await svc.client.listCampaignUploads({ clientId: client, mode: 'MODE_LIVE' })).uploads).toEqual([]);

    await svc.client.runRetention({ retentionDays: 0 });
    const { rows } = await svc.pool.query('SELECT count(*)::int AS n FROM campaign_uploads WHERE upload_id = $1', [uploadId]);
    expect(rows[0].n).toBe(0);
  });

  it('when the fields are out of bounds, then VALIDATION_ERROR', async () => {
    const client = newClientId();
    const base = {
      clientId: client,
      mode: 'MODE_LIVE' as const,
      name: 'x',
      fileName: 'f.csv',
      headers: ['a'],
      rowCount: 1,
      content: Buffer.from('a\n1\n'),
    };
    for (const bad of [
      { name: ' ' },
      { fileName: 'f'.repeat(201) },
      { headers: [] },
      { headers: Array.from({ length: 101 }, (_, i) => `c${i}`) },
    ]) {
      expect((await failure(svc.client.storeCampaignUpload({ ...base, ...bad })))?.code).toBe('VALIDATION_ERROR');
    }
  });
});
