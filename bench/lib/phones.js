'use strict';
const { request } = require('./http');
const { sleep } = require('./time');

/**
 * Waits until the gateway reports the phone online (`GET /v1/auth/test` with `X-Device-ID`
 * answers `device_status: "online"`); on a loaded machine a phone takes a while. `child` is the
 * phone's process, if the caller started one: its exit ends the wait at once.
 * @param {{gatewayUrl: string, ca: string | Buffer, auth: Record<string, string>, deviceId: string, timeoutMs?: number, child?: import('node:child_process').ChildProcess, agent?: import('node:https').Agent}} options
 */
async function waitOnline({ gatewayUrl, ca, auth, deviceId, timeoutMs = 60_000, child, agent }) {
  const deadline = Date.now() + timeoutMs;
  /** @type {unknown} */
  let last;
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) throw new Error(`the phone's process exited (${child.exitCode})`);
    const answer = await request(`${gatewayUrl}/v1/auth/test`, ca, { headers: { ...auth, 'X-Device-ID': deviceId }, agent }).catch(
      (/** @type {Error} */ e) => ({ status: 0, body: { error: e.message } }),
    );
    if (answer.status === 200 && answer.body.device_status === 'online') return;
    last = answer.body;
    await sleep(250);
  }
  throw new Error(`device ${deviceId} not online after ${timeoutMs / 1000} s: ${JSON.stringify(last)}`);
}

/**
 * The headers of a client's live key.
 * @param {{client_id: string, live_api_key: string}} client
 */
const liveAuth = (client) => ({ 'X-API-Key': client.live_api_key, 'X-Client-ID': client.client_id });

module.exports = { liveAuth, waitOnline };
