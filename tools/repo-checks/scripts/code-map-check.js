#!/usr/bin/env node
// Lists the .ts files under services/*/src that docs/contributors/code-map.md does not name, and
// exits 1 when there is any. A file is named in its service's section (`## <service>`) by its
// path from the service (`src/http/routes/sms.routes.ts`) or, in a row that lists several, by its
// file name alone (`keys.use-case.ts`); the files every service has (`src/main.ts`...) are named
// once, in "The shape of a service". `--root=<dir>` checks another tree (for tests).
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const MAP = 'docs/contributors/code-map.md';
const SHAPE = 'The shape of a service';

/** Each `## ` section of a Markdown text by its heading. */
function sections(text) {
  const out = new Map();
  let heading;
  for (const line of text.split('\n')) {
    const h = /^## (.+)$/.exec(line);
    if (h) out.set((heading = h[1].trim()), []);
    else if (heading !== undefined) out.get(heading).push(line);
  }
  return new Map([...out].map(([h, lines]) => [h, lines.join('\n')]));
}

/** What a text puts in backticks. */
const codeSpans = (text) => new Set([...(text ?? '').matchAll(/`([^`\n]+)`/g)].map((m) => m[1].trim()));

/** The .ts files under `dir`, as paths relative to `from`, sorted. */
function tsFiles(dir, from) {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.relative(from, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .sort();
}

/**
 * The files of `filesByService` (service name -> paths from the service, `src/...`) that the code
 * map's text does not name, as `services/<service>/<path>`.
 */
function unmapped(mapText, filesByService) {
  const parts = sections(mapText);
  const everyService = codeSpans(parts.get(SHAPE));
  const missing = [];
  for (const [service, files] of Object.entries(filesByService)) {
    const named = codeSpans(parts.get(service));
    for (const file of files) {
      if (!everyService.has(file) && !named.has(file) && !named.has(path.posix.basename(file))) missing.push(`services/${service}/${file}`);
    }
  }
  return missing.sort();
}

/** The unnamed files of the repository at `root`. */
function check(root) {
  const services = fs
    .readdirSync(path.join(root, 'services'), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const filesByService = Object.fromEntries(
    services.map((s) => [s, tsFiles(path.join(root, 'services', s, 'src'), path.join(root, 'services', s))]),
  );
  const files = Object.values(filesByService).reduce((n, f) => n + f.length, 0);
  return { files, missing: unmapped(fs.readFileSync(path.join(root, MAP), 'utf8'), filesByService) };
}

if (require.main === module) {
  const root = path.resolve(process.argv.find((a) => a.startsWith('--root='))?.slice(7) ?? path.join(__dirname, '../../..'));
  const { files, missing } = check(root);
  for (const file of missing) console.log(`${file}: not in ${MAP}`);
  console.log(`${files} files under services/*/src, ${missing.length} missing from ${MAP}`);
  if (missing.length > 0) process.exitCode = 1;
}

module.exports = { check, unmapped };
