import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseRetryAfter, retryDelay, type BackoffSettings } from '../src/retry';
import { VERSION } from '../src';

const fixed = (r: number): BackoffSettings => ({ baseMs: 500, capMs: 8000, maxRetryAfterMs: 60_000, random: () => r });

describe('when to retry, and how long to wait', () => {
  it('when a safe request meets a network error, a 429 or a 503, then it is retried with full jitter under a doubling bound capped at 8 s', () => {
    for (const outcome of [
      { kind: 'network', connected: true },
      { kind: 'answer', status: 429 },
      { kind: 'answer', status: 503 },
    ] as const) {
      expect(retryDelay(outcome, 0, 'safe', fixed(0.999))).toBe(499);
      expect(retryDelay(outcome, 3, 'safe', fixed(0.5))).toBe(2000);
      expect(retryDelay(outcome, 10, 'safe', fixed(0.999))).toBe(7992);
      expect(retryDelay(outcome, 2, 'safe', fixed(0))).toBe(0);
    }
  });

  it('when other answers come back, then nothing is retried', () => {
    for (const status of [400, 401, 404, 409, 410, 413, 422, 500, 502, 504]) {
      expect(retryDelay({ kind: 'answer', status, code: 'X' }, 0, 'safe', fixed(0.5))).toBeUndefined();
    }
    expect(retryDelay({ kind: 'answer', status: 409, code: 'IDEMPOTENCY_IN_PROGRESS', retryAfterMs: 1000 }, 0, 'safe', fixed(0.5))).toBe(
      1000,
    );
    expect(retryDelay({ kind: 'answer', status: 409, code: 'IDEMPOTENCY_IN_PROGRESS' }, 0, 'once', fixed(0.5))).toBeUndefined();
  });

  it('when Retry-After is given, then it is the delay, unless it is over the longest wait', () => {
    expect(retryDelay({ kind: 'answer', status: 429, retryAfterMs: 7000 }, 0, 'safe', fixed(0.5))).toBe(7000);
    expect(retryDelay({ kind: 'answer', status: 503, retryAfterMs: 0 }, 4, 'safe', fixed(0.5))).toBe(0);
    expect(retryDelay({ kind: 'answer', status: 429, retryAfterMs: 61_000 }, 0, 'safe', fixed(0.5))).toBeUndefined();
  });

  it('when a once-only request (verify-otp) fails, then only a connection that never opened and a 429 are retried', () => {
    expect(retryDelay({ kind: 'network', connected: false }, 0, 'once', fixed(0.5))).toBe(250);
    expect(retryDelay({ kind: 'network', connected: true }, 0, 'once', fixed(0.5))).toBeUndefined();
    expect(retryDelay({ kind: 'answer', status: 503 }, 0, 'once', fixed(0.5))).toBeUndefined();
    expect(retryDelay({ kind: 'answer', status: 429, retryAfterMs: 1000 }, 0, 'once', fixed(0.5))).toBe(1000);
  });

  it('when Retry-After is seconds or an HTTP date, then it is read as milliseconds', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter(' 0 ')).toBe(0);
    expect(parseRetryAfter('Wed, 01 Jan 2030 00:00:10 GMT', Date.parse('2030-01-01T00:00:00Z'))).toBe(10_000);
    expect(parseRetryAfter(undefined)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
  });

  it("when the package is published, then the version it announces is package.json's", () => {
    const pkg = JSON.parse(readFileSync(path.join(__dirname, '../package.json'), 'utf8')) as { version: string };
    expect(VERSION).toBe(pkg.version);
  });
});
