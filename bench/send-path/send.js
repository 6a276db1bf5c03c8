'use strict';
/** Phase 2: POST /v1/sms/send accepted (200), every service running and one phone online. */
const { request } = require('../lib/http');
const { measure } = require('./load');
const { rssOf } = require('./sampling');
const { TEXT, TO } = require('./settings');

const sendBody = JSON.stringify({ to: TO, message: TEXT });

/**
 * One send before the load, the CA verified: it must be queued. Returns the answer.
 * @param {import('./setup').Run} run
 * @returns {Promise<{status: string, message_id: string}>}
 */
async function checkSend({ stack, caPem, sendHeaders }) {
  const one = await request(`${stack.gatewayUrl}/v1/sms/send`, caPem, {
    method: 'POST',
    headers: sendHeaders,
    body: { to: TO, message: TEXT },
  });
  if (one.status !== 200 || one.body.status !== 'queued')
    throw new Error(`a single send was not accepted: ${one.status} ${JSON.stringify(one.body)}`);
  return one.body;
}

/**
 * Measures the send phase; reads the memory after it.
 * @param {import('./setup').Run} run
 * @param {import('./load').Results} results
 */
async function measureSend(run, results) {
  results.agentSentBefore = run.agent.sent;
  await measure(run, results, {
    key: 'send',
    label: '2. POST /v1/sms/send accepted, every service running',
    url: run.atGateways('/v1/sms/send'),
    options: { method: 'POST', headers: run.sendHeaders, body: sendBody },
    okStatus: '200',
  });
  results.rss.after_send = rssOf(run, { agent: run.agent.child.pid });
}

module.exports = { checkSend, measureSend };
