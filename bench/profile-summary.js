'use strict';
// Summarises the V8 CPU profiles of `BENCH_CPU_PROF=1 node bench/run.js`:
//   node bench/profile-summary.js bench/results/cpu-prof-<run> [--top 15]
// For each profile: busy time, then time by package (self: in the package's own code; inclusive:
// with everything it called), then the hottest functions.
const fs = require('node:fs');
const path = require('node:path');

const args = process.argv.slice(2);
const dir = args.find((a) => !a.startsWith('--'));
const topIndex = args.indexOf('--top');
const TOP = topIndex >= 0 ? Number(args[topIndex + 1]) : 15;
if (!dir) {
  console.error('usage: node bench/profile-summary.js <dir with .cpuprofile files> [--top N]');
  process.exit(2);
}

/** Where a frame's code comes from: a package, a file of this repository, Node itself, or V8. */
function packageOf(frame) {
  const { url, functionName } = frame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/').slice(0, 2).join('/')}`;
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const parts = url.slice(nm + 'node_modules/'.length).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  const repo = url.indexOf('/work/main/');
  const rel = repo >= 0 ? url.slice(repo + '/work/main/'.length) : url.replace(/^file:\/\//, '');
  const m = /^(services\/[^/]+|packages\/[^/]+|tools\/[^/]+|android-agent)\//.exec(rel);
  return m ? `repo:${m[1]}` : rel;
}

function summarise(file) {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const total = (profile.endTime - profile.startTime) / 1000;
  let idle = 0;
  const pkgSelf = new Map();
  const pkgIncl = new Map();
  const fnSelf = new Map();
  for (const [id, us] of self) {
    const node = byId.get(id);
    const ms = us / 1000;
    if (node.callFrame.functionName === '(idle)') {
      idle += ms;
      continue;
    }
    const pkg = packageOf(node.callFrame);
    pkgSelf.set(pkg, (pkgSelf.get(pkg) ?? 0) + ms);
    const f = node.callFrame;
    const fn = `${f.functionName || '(anonymous)'}  ${f.url ? `${path.basename(f.url)}:${f.lineNumber + 1}` : ''}  [${pkg}]`;
    fnSelf.set(fn, (fnSelf.get(fn) ?? 0) + ms);
    const seen = new Set();
    for (let p = id; p !== undefined; p = parent.get(p)) {
      const q = packageOf(byId.get(p).callFrame);
      if (!seen.has(q)) {
        seen.add(q);
        pkgIncl.set(q, (pkgIncl.get(q) ?? 0) + ms);
      }
    }
  }
  const busy = total - idle;
  const pct = (ms) => `${((ms / busy) * 100).toFixed(1).padStart(5)}%`;
  const top = (map) => [...map.entries()].sort((a, b) => b[1] - a[1]).slice(0, TOP);
  console.log(
    `\n=== ${path.basename(file)}: ${total.toFixed(0)} ms profiled, busy ${busy.toFixed(0)} ms (${((busy / total) * 100).toFixed(0)}%)`,
  );
  console.log('  self time by package (% of busy):');
  for (const [k, v] of top(pkgSelf)) console.log(`    ${pct(v)}  ${k}`);
  console.log('  inclusive time by package (% of busy; a package and everything it called):');
  for (const [k, v] of top(pkgIncl)) if (!k.startsWith('(root')) console.log(`    ${pct(v)}  ${k}`);
  console.log('  hottest functions (self):');
  for (const [k, v] of top(fnSelf)) console.log(`    ${pct(v)}  ${k}`);
}

for (const f of fs
  .readdirSync(dir)
  .filter((n) => n.endsWith('.cpuprofile'))
  .sort())
  summarise(path.join(dir, f));
