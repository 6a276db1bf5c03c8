#!/usr/bin/env node
// Lists the source files of the services, packages and tooling that are over 300 lines and do not
// say why at their top (docs/contributors/conventions.md#long-files), and exits 1 when there is
// any. "At the top" is a comment before any code: after a shebang or 'use strict' in JavaScript,
// before `package` in Go, a comment or docstring first in Python. Tests, generated files and the
// benchmarks are not counted. `--root=<dir>` checks another tree (for tests).
'use strict';
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const LIMIT = 300;

/** Where the rule applies: what runs in the services, the packages and their tools. */
const SCOPES = [
  /^services\/[^/]+\/src\//,
  /^packages\/[^/]+\/src\//,
  /^tools\//,
  /^scripts\//,
  /^android-agent\/src\//,
  /^clients\/go\/[^/]+\.go$/,
  /^clients\/python\/src\//,
];
const EXTENSIONS = /\.(ts|js|mjs|cjs|go|py|sh)$/;
const NOT_SOURCE = /(^|\/)(test|tests|fixtures|gen)\/|\.test\.[jt]s$|_test\.go$|\.d\.ts$/;

const inScope = (file) => EXTENSIONS.test(file) && !NOT_SOURCE.test(file) && SCOPES.some((s) => s.test(file));

/** Whether the file's first statement-free lines hold a comment: its reason, for a long file. */
function saysWhyAtTop(file, text) {
  const lines = text.split('\n');
  let i = 0;
  const skip = (re) => {
    while (i < lines.length && re.test(lines[i])) i++;
  };
  skip(/^\s*$/);
  if (lines[i]?.startsWith('#!')) i++;
  skip(/^\s*$/);
  if (/\.(ts|js|mjs|cjs)$/.test(file) && /^['"]use strict['"];?\s*$/.test(lines[i] ?? '')) {
    i++;
    skip(/^\s*$/);
  }
  const first = lines[i] ?? '';
  if (/\.py$/.test(file) || /\.sh$/.test(file)) return /^(#|"""|''')/.test(first);
  return /^(\/\/|\/\*)/.test(first);
}

/** The long files without their reason, of `files` (path -> text). */
function unexplained(files) {
  return Object.entries(files)
    .filter(([file, text]) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0) > LIMIT && !saysWhyAtTop(file, text))
    .map(([file]) => file)
    .sort();
}

/** The files under the rule in the repository at `root` (tracked by git), and those without their reason. */
function check(root) {
  const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
    .split('\0')
    .filter((f) => f && inScope(f) && fs.existsSync(path.join(root, f)));
  const files = Object.fromEntries(tracked.map((f) => [f, fs.readFileSync(path.join(root, f), 'utf8')]));
  const long = Object.values(files).filter((t) => t.split('\n').length - (t.endsWith('\n') ? 1 : 0) > LIMIT).length;
  return { files: tracked.length, long, missing: unexplained(files) };
}

if (require.main === module) {
  const root = path.resolve(process.argv.find((a) => a.startsWith('--root='))?.slice(7) ?? path.join(__dirname, '../../..'));
  const { files, long, missing } = check(root);
  for (const file of missing) console.log(`${file}: over ${LIMIT} lines, and no comment at its top says why`);
  console.log(`${files} source files, ${long} over ${LIMIT} lines, ${missing.length} without their reason at the top`);
  if (missing.length > 0) process.exitCode = 1;
}

module.exports = { check, inScope, saysWhyAtTop, unexplained, LIMIT };
