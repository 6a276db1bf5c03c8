import { deterministicId, newClientId, newId, randomAlphanumeric, randomDigits } from '../src';

const CROCKFORD_ULID = /^[0-9ABCDEFGHJKMNPQRSTVWXYZ]{26}$/;

describe('ids', () => {
  it('when ids are made one after another, then each carries its prefix and they sort in creation order', () => {
    const ids = Array.from({ length: 500 }, () => newId('msg'));

    for (const id of ids) expect(id).toMatch(/^msg_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
    expect(newId('evt')).toMatch(/^evt_/);
    expect(newId('batch')).toMatch(/^batch_/);
  });

  it('when ids are made a few milliseconds apart, then the later one sorts after the earlier', async () => {
    const first = newId('key');
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = newId('key');

    expect(second > first).toBe(true);
    expect(second.slice(4, 14) > first.slice(4, 14)).toBe(true);
  });

  it('when a client id is made, then it is client_ followed by digits only', () => {
    expect(newClientId()).toMatch(/^client_\d{19}$/);
  });

  it('when a deterministic id is made twice from the same seed and time, then it is the same, ULID-shaped', () => {
    const at = Date.parse('2025-01-02T03:04:05.678Z');
    const a = deterministicId('evt', at, 'msg_1:sent');
    const b = deterministicId('evt', at, 'msg_1:sent');

    expect(a).toBe(b);
    expect(a).toMatch(/^evt_/);
    expect(a.slice(4)).toMatch(CROCKFORD_ULID);
  });

  it('when the seed differs, then the deterministic id differs but keeps the same time part', () => {
    const at = Date.parse('2025-01-02T03:04:05.678Z');
    const sent = deterministicId('evt', at, 'msg_1:sent');
    const delivered = deterministicId('evt', at, 'msg_1:delivered');

    expect(sent).not.toBe(delivered);
    expect(sent.slice(0, 14)).toBe(delivered.slice(0, 14));
  });

  it('when deterministic ids are made at increasing times, then they sort by time like ULIDs', () => {
    const times = [0, 1, 31, 32, 1_000, Date.parse('2020-01-01T00:00:00Z'), Date.parse('2030-01-01T00:00:00Z')];
    const ids = times.map((t) => deterministicId('evt', t, 'same-seed'));

    expect([...ids].sort()).toEqual(ids);
    expect(ids[0]!.slice(4, 14)).toBe('0000000000');
  });

  it('when random strings are asked for, then they have the length and alphabet asked for', () => {
    const text = randomAlphanumeric(1000);
    expect(text).toMatch(/^[A-Za-z0-9]{1000}$/);
    expect(new Set(text).size).toBeGreaterThan(50);
    expect(randomDigits(6)).toMatch(/^\d{6}$/);
  });
});
