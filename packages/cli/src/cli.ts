#!/usr/bin/env node
import { run } from './run';

run(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  onInterrupt: (stop) => {
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  },
}).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`smsgw: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exitCode = 1;
  },
);
