#!/usr/bin/env node
// A webhook receiver for the SMS gateway, with no dependency: copy it and
// put your own handling where `handle(event)` is.
//
//   node examples/webhook-receiver.mjs --port 9443 --secret whsec_... \
//     --cert server.pem --key server-key.pem
//
// For each POST it:
//   1. reads the raw body, unparsed, and checks X-Webhook-Signature: the hex
//      HMAC-SHA256 of those exact bytes under the secret (the endpoint's
//      secret, or your account's signing secret for a message's own
//      webhook_url), compared in constant time;
//   2. refuses a delivery whose `timestamp` (when it was signed) is more than
//      5 minutes away from now: a captured request replayed later fails;
//   3. drops an event_id it has already handled (the platform delivers at
//      least once: a retry after a lost answer brings the same event again),
//      and answers 200 to it so that the platform stops retrying;
//   4. answers 200 at once and handles the event after: the platform waits
//      5 seconds at most.
// A batched endpoint's POST is a JSON array of events, signed as a whole:
// each event is checked and handled as one alone would be.
import { createHmac, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '9443' },
    host: { type: 'string', default: '127.0.0.1' },
    secret: { type: 'string', default: process.env.WEBHOOK_SECRET },
    cert: { type: 'string' },
    key: { type: 'string' },
    'max-age-seconds': { type: 'string', default: '300' },
  },
});
if (!values.secret || !values.cert || !values.key) {
  console.error('usage: webhook-receiver.mjs --secret S (or WEBHOOK_SECRET) --cert FILE --key FILE [--port 9443] [--host 127.0.0.1]');
  process.exit(2);
}
const secret = values.secret;
const maxAgeMs = Number(values['max-age-seconds']) * 1000;

/** Event ids already handled, with when they were seen; forgotten after a day. */
const seen = new Map();
const DAY_MS = 24 * 3600 * 1000;

function signatureMatches(raw, header) {
  const expected = createHmac('sha256', secret).update(raw).digest();
  const given = Buffer.from(typeof header === 'string' ? header : '', 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

function handle(event) {
  // Your code: update your order, notify your user... One JSON line here.
  console.log(JSON.stringify({ handled: event.event, event_id: event.event_id, data: event.data }));
}

const server = https.createServer({ cert: fs.readFileSync(values.cert), key: fs.readFileSync(values.key) }, (req, res) => {
  const chunks = [];
  let size = 0;
  req.on('data', (chunk) => {
    size += chunk.length;
    if (size > 1024 * 1024) req.destroy();
    else chunks.push(chunk);
  });
  req.on('end', () => {
    const raw = Buffer.concat(chunks);
    const answer = (status, reason) => {
      res.writeHead(status, { 'Content-Type': 'text/plain' }).end(reason);
      if (status !== 200) console.log(JSON.stringify({ refused: status, reason }));
    };
    if (req.method !== 'POST') return answer(405, 'POST only');
    if (!signatureMatches(raw, req.headers['x-webhook-signature'])) return answer(401, 'bad signature');
    let body;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      return answer(400, 'not JSON');
    }
    const events = Array.isArray(body) ? body : [body];
    for (const event of events) {
      const signedAt = Date.parse(event?.timestamp);
      if (!Number.isFinite(signedAt) || Math.abs(Date.now() - signedAt) > maxAgeMs) return answer(400, 'stale timestamp');
    }
    const fresh = [];
    for (const event of events) {
      if (seen.has(event.event_id)) console.log(JSON.stringify({ duplicate: event.event_id }));
      else {
        seen.set(event.event_id, Date.now());
        fresh.push(event);
      }
    }
    answer(200, fresh.length > 0 ? 'ok' : 'duplicate');
    setImmediate(() => fresh.forEach(handle));
  });
});

setInterval(() => {
  for (const [id, at] of seen) if (Date.now() - at > DAY_MS) seen.delete(id);
}, 60_000).unref();

server.listen(Number(values.port), values.host, () => {
  console.log(JSON.stringify({ listening: `https://${values.host}:${server.address().port}` }));
});
