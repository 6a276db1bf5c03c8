'use strict';
/**
 * Phase 4: POST /v1/sms/send-otp with the live key and a new number for every request (the limit
 * of 10 an hour per number is never hit; the client's pumping guard is off).
 */
const { request } = require('../lib/http');
const { measure } = require('./load');

let nextNumber = 0;
/** A number no OTP of this run went to yet (the verify phase's pool takes them from here too). */
const freshNumber = () => `+3367${String(nextNumber++).padStart(7, '0')}`;

/**
 * One send-otp, the CA verified, then the phase.
 * @param {import('./setup').Run} run
 * @param {import('./load').Results} results
 */
async function measureOtpSend(run, results) {
  const otpHeaders = { ...run.sendHeaders };
  const check = await request(`${run.stack.gatewayUrl}/v1/sms/send-otp`, run.caPem, {
    method: 'POST',
    headers: otpHeaders,
    body: { to: freshNumber() },
  });
  if (check.status !== 200 || !check.body.otp_id)
    throw new Error(`send-otp was not accepted: ${check.status} ${JSON.stringify(check.body)}`);
  await measure(run, results, {
    key: 'otp_send',
    label: '4. POST /v1/sms/send-otp, a new number per request',
    url: run.atGateways('/v1/sms/send-otp'),
    options: {
      method: 'POST',
      headers: otpHeaders,
      requests: [{ setupRequest: (/** @type {object} */ req) => ({ ...req, body: JSON.stringify({ to: freshNumber() }) }) }],
    },
    okStatus: '200',
  });
}

module.exports = { freshNumber, measureOtpSend };
