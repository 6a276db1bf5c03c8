'use strict';
// Loaded into each service with NODE_OPTIONS=--require by bench/fleet/throughput.js. After each
// major collection (mark-sweep-compact), appends the heap still in use to
// $BENCH_HEAP_DIR/<service>.jsonl: `{"t":<ms since epoch>,"heap_mb":…,"heap_total_mb":…,"external_mb":…,"rss_mb":…}`.
// The live heap after full collections is what tells a leak from garbage that RSS alone cannot;
// `heap_total` is what V8 keeps committed for its heap (RSS counts it, live or not), `external`
// the memory of Buffers and native objects that V8 tracks outside its heap.
const fs = require('node:fs');
const path = require('node:path');
const { constants, PerformanceObserver } = require('node:perf_hooks');

const dir = process.env.BENCH_HEAP_DIR;
if (dir) {
  const service = path.basename(path.dirname(path.dirname(process.argv[1] ?? 'unknown')));
  const file = path.join(dir, `${service}.jsonl`);
  fs.mkdirSync(dir, { recursive: true });
  const observer = new PerformanceObserver((list) => {
    if (!list.getEntries().some((e) => e.detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR)) return;
    const { heapUsed, heapTotal, external, rss } = process.memoryUsage();
    const mb = (bytes) => Math.round(bytes / 1048576);
    const line = { t: Date.now(), heap_mb: mb(heapUsed), heap_total_mb: mb(heapTotal), external_mb: mb(external), rss_mb: mb(rss) };
    fs.appendFile(file, `${JSON.stringify(line)}\n`, () => undefined);
  });
  observer.observe({ entryTypes: ['gc'] });
  observer.unref?.();
}
