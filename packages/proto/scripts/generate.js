#!/usr/bin/env node
// Generates TypeScript types for every contract under proto/ with
// proto-loader-gen-types, using the very options the runtime loader uses
// (src/loader-options.json), so types and loaded objects cannot disagree.
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const protoRoot = path.resolve(__dirname, '../../../proto');
const outDir = path.resolve(__dirname, '../src/gen');
const options = require('../src/loader-options.json');

function protoFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return protoFiles(full);
    return entry.name.endsWith('.proto') ? [path.relative(protoRoot, full)] : [];
  });
}

const flags = Object.entries(options).map(([name, value]) =>
  value === true ? `--${name}` : value === false ? `--${name}=false` : `--${name}=${value}`,
);
fs.rmSync(outDir, { recursive: true, force: true });
const bin = require.resolve('@grpc/proto-loader/build/bin/proto-loader-gen-types.js');
execFileSync(
  process.execPath,
  [bin, ...flags, '--grpcLib=@grpc/grpc-js', `--outDir=${outDir}`, `--includeDirs=${protoRoot}`, '--', ...protoFiles(protoRoot)],
  { stdio: 'inherit' },
);

// A barrel per package directory, so services import `message.Message__Output`
// from '@smsgw/proto' rather than deep generated paths.
function writeBarrels(dir) {
  const entries = fs.readdirSync(dir, { withFileTypes: true });
  const files = entries.filter((e) => e.isFile() && e.name.endsWith('.ts') && e.name !== 'index.ts');
  if (dir !== outDir && files.length > 0) {
    const lines = files.map((f) => `export * from './${f.name.replace(/\.ts$/, '')}';`);
    fs.writeFileSync(path.join(dir, 'index.ts'), `${lines.join('\n')}\n`);
  }
  for (const e of entries) if (e.isDirectory()) writeBarrels(path.join(dir, e.name));
}
writeBarrels(outDir);
