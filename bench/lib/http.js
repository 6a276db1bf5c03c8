'use strict';
const https = require('node:https');

/**
 * One HTTPS request to the stack (its CA), JSON in and out. Resolves `{status, headers, body}`
 * (`body` is `{}` for an empty answer, `{raw}` for one that is not JSON); a network error or
 * the timeout rejects.
 * @param {string | URL} url
 * @param {string | Buffer} ca the stack's CA certificate (PEM)
 * @param {{method?: string, headers?: Record<string, string>, body?: unknown, agent?: https.Agent, timeoutMs?: number}} [options]
 * @returns {Promise<{status: number, headers: import('node:http').IncomingHttpHeaders, body: any}>}
 */
function request(url, ca, { method = 'GET', headers = {}, body, agent, timeoutMs = 15_000 } = {}) {
  return new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const json = payload ? { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(payload)) } : {};
    const req = https.request(url, { method, ca, agent, headers: { ...headers, ...json }, timeout: timeoutMs }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (/** @type {string} */ c) => (text += c));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parseJson(text) });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`timeout: ${method} ${String(url)}`)));
    req.on('error', reject);
    req.end(payload);
  });
}

/**
 * `text` as JSON: `{}` when empty, `{raw}` (its start) when it is not JSON.
 * @param {string} text
 * @returns {any}
 */
function parseJson(text) {
  if (!text) return {};
  try {
    return JSON.parse(text);
  } catch {
    return { raw: text.slice(0, 200) };
  }
}

module.exports = { request };
