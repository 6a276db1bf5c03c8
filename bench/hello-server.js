'use strict';
// The baseline of `make bench`: a bare Koa app over HTTPS answering
// {"success":true}, with the stack's certificate. run.js forks it so that it
// has an event loop (and a process) of its own, like the gateway.
// Usage: node bench/hello-server.js <certFile> <keyFile>; the port it
// listens on goes to the parent over IPC ({ port }).
const fs = require('node:fs');
const https = require('node:https');
const Koa = require('koa');

const [certFile, keyFile] = process.argv.slice(2);
if (!certFile || !keyFile) {
  console.error('usage: node bench/hello-server.js <certFile> <keyFile>');
  process.exit(2);
}

const app = new Koa();
app.use((ctx) => {
  ctx.body = { success: true };
});

const server = https.createServer({ cert: fs.readFileSync(certFile), key: fs.readFileSync(keyFile) }, app.callback());
server.keepAliveTimeout = 65_000; // as the gateway
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  if (process.send) process.send({ port });
  else console.log(`listening on https://127.0.0.1:${port}`);
});

const stop = () => server.close(() => process.exit(0)) && server.closeAllConnections();
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
// The parent went away (crash, SIGKILL): do not outlive it.
process.on('disconnect', () => process.exit(0));
