'use strict';
/**
 * The yardstick of the connections benchmark: a bare `ws` server over HTTPS (the stack's
 * certificate) that holds the same sockets as the hub would, sends the same `hello` and pings at
 * the hub's interval, and does nothing else. Forked by connections.js; tells its parent its port,
 * then its RSS and CPU time on request.
 */
const fs = require('node:fs');
const https = require('node:https');
const { WebSocketServer } = require('ws');

const { certFile, keyFile, pingIntervalMs = 25_000 } = JSON.parse(process.env.BARE_SETTINGS);
const server = https.createServer({ cert: fs.readFileSync(certFile), key: fs.readFileSync(keyFile) });
const wss = new WebSocketServer({ server, path: '/v1/agent', perMessageDeflate: false, maxPayload: 64 * 1024 });
wss.on('connection', (ws) => {
  ws.send(JSON.stringify({ type: 'hello', protocol: 4, device_id: 'bare', ping_interval_ms: pingIntervalMs }));
  ws.on('message', () => undefined);
  const timer = setInterval(() => ws.ping(), pingIntervalMs);
  ws.on('close', () => clearInterval(timer));
});
server.listen(0, '127.0.0.1', () => process.send({ type: 'listening', port: server.address().port }));
process.on('message', (msg) => {
  if (msg?.cmd === 'stats') process.send({ type: 'stats', rssBytes: process.memoryUsage.rss(), clients: wss.clients.size });
});
process.on('disconnect', () => process.exit(0));
