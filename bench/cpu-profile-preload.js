'use strict';
// Loaded into each service with NODE_OPTIONS=--require (Node 20 refuses --cpu-prof in NODE_OPTIONS)
// when `BENCH_CPU_PROF=1 node bench/run.js`. Each SIGUSR2 toggles the V8 CPU profiler: run.js sends
// one when a measured phase starts and one when it ends, so a profile covers exactly that phase.
// Profiles go to $BENCH_CPU_PROF_DIR/<service>-<phase>.cpuprofile (the phase is read from the file
// current-phase that run.js writes there) (open in Chrome DevTools or
// summarise with bench/profile-summary.js).
const fs = require('node:fs');
const inspector = require('node:inspector');
const path = require('node:path');

const dir = process.env.BENCH_CPU_PROF_DIR;
if (dir) {
  const service = path.basename(path.dirname(path.dirname(process.argv[1] ?? 'unknown')));
  const session = new inspector.Session();
  session.connect();
  session.post('Profiler.enable');
  let running = false;
  let phase = 'phase';
  process.on('SIGUSR2', () => {
    if (!running) {
      running = true;
      try {
        phase = fs.readFileSync(path.join(dir, 'current-phase'), 'utf8').trim() || phase;
      } catch {
        /* keep the default name */
      }
      session.post('Profiler.start');
      return;
    }
    running = false;
    session.post('Profiler.stop', (err, result) => {
      if (err) return;
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, `${service}-${phase}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}
