'use strict';
/** Phase 3: messages accepted per second through POST /v1/sms/send-bulk, BULK_SIZE recipients a request. */
const { request } = require('../lib/http');
const { measure } = require('./load');
const { rssOf } = require('./sampling');
const { BULK_SIZE, TEXT, round } = require('./settings');

const recipients = Array.from({ length: BULK_SIZE }, (_, i) => `+336120000${String(i).padStart(2, '0')}`);
const bulkBody = JSON.stringify({ recipients, message: TEXT });

/**
 * One bulk send before the load, the CA verified: every recipient must be queued. Returns the answer.
 * @param {import('./setup').Run} run
 * @returns {Promise<{total_recipients: number}>}
 */
async function checkBulk({ stack, caPem, sendHeaders }) {
  const bulk = await request(`${stack.gatewayUrl}/v1/sms/send-bulk`, caPem, {
    method: 'POST',
    headers: sendHeaders,
    body: { recipients, message: TEXT },
  });
  if (bulk.status !== 200 || bulk.body.total_recipients !== BULK_SIZE)
    throw new Error(`a bulk send was not accepted: ${bulk.status} ${JSON.stringify(bulk.body).slice(0, 500)}`);
  return bulk.body;
}

/**
 * Measures the bulk phase (messages a second too); reads the memory and what the phone sent after it.
 * @param {import('./setup').Run} run
 * @param {import('./load').Results} results
 */
async function measureBulk(run, results) {
  const bulk = await measure(run, results, {
    key: 'bulk',
    label: `3. POST /v1/sms/send-bulk, ${BULK_SIZE} recipients per request`,
    url: run.atGateways('/v1/sms/send-bulk'),
    options: { method: 'POST', headers: run.sendHeaders, body: bulkBody },
    okStatus: '200',
  });
  bulk.messages_accepted_per_s = round(bulk.accepted_per_s * BULK_SIZE, 0);
  bulk.recipients_per_request = BULK_SIZE;
  results.rss.after_bulk = rssOf(run, { agent: run.agent.child.pid });
  results.agentSentDuringRun = run.agent.sent - results.agentSentBefore;
}

module.exports = { checkBulk, measureBulk };
