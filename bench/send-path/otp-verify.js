'use strict';
/**
 * Phase 5: POST /v1/sms/verify-otp over a pool of test-key OTPs made first, each verified wrong,
 * wrong, then right: three 200 answers per OTP.
 */
const { randomUUID } = require('node:crypto');
const { request } = require('../lib/http');
const { sleep } = require('../lib/time');
const { measure } = require('./load');
const { freshNumber } = require('./otp-send');
const { CONNECTIONS, OTP_POOL, round, say } = require('./settings');

/**
 * Makes the pool of test-key OTPs (code 123456), then waits until the simulated device of test
 * keys has walked their SMS through their states. Returns the OTP ids.
 * @param {import('./setup').Run} run
 * @returns {Promise<string[]>}
 */
async function makeOtpPool({ stack, caPem, client, device }) {
  say(`\n  making ${OTP_POOL} test-key OTPs for the verify phase...`);
  const testHeaders = {
    'X-API-Key': client.test_api_key,
    'X-Client-ID': client.client_id,
    'X-Device-ID': device.device_id,
    'Content-Type': 'application/json',
  };
  /** @type {string[]} */
  const pool = [];
  /** @type {string | undefined} */
  let lastMessage;
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (pool.length < OTP_POOL) {
        // A 503 (a deadline passed on a loaded machine) is retried with the same idempotency key, as the API asks (409: that first try still runs).
        const key = `bench-otp-${randomUUID()}`;
        const body = { to: freshNumber() };
        let r;
        for (let attempt = 1; ; attempt++) {
          r = await request(`${stack.gatewayUrl}/v1/sms/send-otp`, caPem, {
            method: 'POST',
            headers: { ...testHeaders, 'Idempotency-Key': key },
            body,
          });
          if ((r.status !== 503 && r.status !== 409) || attempt === 5) break;
          await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
        }
        if (r.status !== 200) throw new Error(`a test OTP was not made: ${r.status} ${JSON.stringify(r.body)}`);
        pool.push(r.body.otp_id);
        lastMessage = r.body.message_id;
      }
    }),
  );
  // The simulated device of test keys walks each of their SMS through its states: let it finish first.
  const drainStarted = Date.now();
  while (Date.now() - drainStarted < 180_000) {
    const s = await request(`${stack.gatewayUrl}/v1/sms/status/${lastMessage}`, caPem, { headers: testHeaders });
    if (s.body.status === 'delivered') break;
    await sleep(1000);
  }
  say(`  pool ready; the simulated device drained it in ${round((Date.now() - drainStarted) / 1000, 1)} s`);
  return pool;
}

/**
 * Measures verify-otp over `pool`: each OTP gets a wrong code, a wrong code, then the right one.
 * @param {import('./setup').Run} run
 * @param {import('./load').Results} results
 * @param {string[]} pool
 */
async function measureOtpVerify(run, results, pool) {
  let nextVerify = 0;
  const verify = await measure(run, results, {
    key: 'otp_verify',
    label: '5. POST /v1/sms/verify-otp (wrong, wrong, then right code per OTP)',
    url: run.atGateways('/v1/sms/verify-otp'),
    options: {
      method: 'POST',
      headers: { 'X-API-Key': run.client.test_api_key, 'X-Client-ID': run.client.client_id, 'Content-Type': 'application/json' },
      requests: [
        {
          setupRequest: (/** @type {object} */ req) => {
            const k = nextVerify++;
            const pass = Math.floor(k / pool.length);
            return { ...req, body: JSON.stringify({ otp_id: pool[k % pool.length], code: pass === 2 ? '123456' : '000000' }) };
          },
        },
      ],
    },
    okStatus: '200',
  });
  verify.pool = pool.length;
}

module.exports = { makeOtpPool, measureOtpVerify };
