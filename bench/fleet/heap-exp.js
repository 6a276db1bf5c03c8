'use strict';
// Temporary: heap snapshots of the hub before and after N phones connect.
const path = require('node:path');
const fs = require('node:fs');
const { Admin } = require('@smsgw/admin');
const { REPO_ROOT, startStack } = require('@smsgw/stack');
const { provision, startFleet } = require('./fleet');
const { rssKb } = require('../proc');
const N = Number(process.env.N || 2000);
const OUT = process.env.OUT || '/tmp/heap';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function snap(pid, name) {
  const before = new Set(fs.readdirSync(OUT));
  process.kill(pid, 'SIGUSR2');
  for (let i = 0; i < 600; i++) {
    await sleep(500);
    const f = fs.readdirSync(OUT).filter((x) => !before.has(x) && x.endsWith('.heapsnapshot'));
    if (f.length) { await sleep(3000); fs.renameSync(path.join(OUT, f[0]), path.join(OUT, name)); return; }
  }
  throw new Error('no snapshot');
}
(async () => {
  const stack = await startStack({
    dataDir: path.join(REPO_ROOT, '.stack/heap'),
    isolated: true,
    env: { LOG_LEVEL: 'warn', NODE_OPTIONS: `--heapsnapshot-signal=SIGUSR2 --diagnostic-dir=${OUT}` },
  });
  const hub = stack.services['device-hub'];
  try {
    const admin = new Admin({ accountAddress: stack.accountAddress, deviceHubAddress: stack.deviceHubAddress, webhookAddress: stack.webhookAddress }, stack.grpcCredentials('admin'));
    const client = await admin.createClient(`heap${Date.now()}@example.com`, 'heap');
    const phones = await provision({ admin, hubUrl: stack.hubUrl, ca: stack.certs.caPem, clientId: client.client_id, count: N });
    await sleep(5000);
    const rss0 = rssKb(hub.pid);
    await snap(hub.pid, 'before.heapsnapshot');
    const fleet = startFleet({ phones, hubUrl: stack.hubUrl, caFile: stack.certs.caCertFile, processes: 1 });
    await fleet.waitConnected(N, 300_000);
    await sleep(20_000);
    const rss1 = rssKb(hub.pid);
    console.log(`rss before ${rss0} kB after ${rss1} kB: ${((rss1 - rss0) / N).toFixed(1)} kB/phone`);
    await snap(hub.pid, 'after.heapsnapshot');
    await fleet.stop();
  } finally {
    await stack.stop();
  }
})().catch((e) => { console.error(e); process.exit(1); });
