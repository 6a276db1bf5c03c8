#!/usr/bin/env node
// Checks docs/contributors/code-map.md against the tree, and exits 1 on any finding:
// - every .ts file under services/*/src is named in its service's section (`## <service>`) by its
//   path from the service (`src/http/routes/sms.routes.ts`) or, in a row that lists several, by
//   its file name alone (`keys.use-case.ts`); the files every service has (`src/main.ts`...) are
//   named once, in "The shape of a service";
// - the rest of the house: every folder under packages/, tools/ and clients/, and the two phone
//   agents, is named; each section of HOUSE_SECTIONS whose folder exists is there, and the paths
//   its rows name exist (a path from the repository root, or a file name after a folder or a file
//   of the same row, which it is beside);
// - the rows of "Where each public endpoint's rules live" are the paths of the OpenAPI document,
//   one for one (`GET /v1/sms/status/:message_id` is `/v1/sms/status/{message_id}`; a span
//   without a method takes the one before it; a bare name, `send-bulk-personalized`, is the path
//   before it with its last part replaced); the endpoints of "Endpoints outside the OpenAPI
//   document" are not in it.
// `--root=<dir>` checks another tree (for tests).
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const MAP = 'docs/contributors/code-map.md';
const SHAPE = 'The shape of a service';
const OPENAPI = 'services/gateway/src/openapi/openapi.json';
const ENDPOINTS = "Where each public endpoint's rules live";
const OUTSIDE = 'Endpoints outside the OpenAPI document';
/** The sections of what is not a service, each required when its folder exists. */
const HOUSE_SECTIONS = [
  { heading: 'The Android app (android-agent/android)', folder: 'android-agent/android' },
  { heading: 'The Node agent (android-agent/src)', folder: 'android-agent/src' },
  { heading: 'The command line (packages/cli)', folder: 'packages/cli' },
  { heading: 'The client libraries (clients/*, packages/client)', folder: 'clients' },
  { heading: 'The other packages and tools', folder: 'packages' },
];
/** The folders whose every subfolder the map must name. */
const HOUSE_PARENTS = ['packages', 'tools', 'clients'];
/** A file name a row may name beside a path of the row (`Agent.java`), not a package name (`java.net`). */
const FILE_NAME = /^[\w.-]+\.(ts|js|mjs|cjs|json|md|java|xml|go|py|sh|toml|yaml|yml)$/;
const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'];

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

/** The table rows of a section's text, each as its cells (code spans may hold no `|`). */
function rows(text) {
  return (text ?? '')
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|\s*:?-/.test(line))
    .map((line) => line.replace(/^\||\|\s*$/g, '').split('|'));
}

/** The paths a row names, from the repository root: `a/b/` and `a/b.ts`, and `c.ts` beside them. */
function rowPaths(cells) {
  const out = [];
  let folder;
  for (const span of codeSpans(cells.join('|'))) {
    if (span.includes('/') && /^\w[\w./-]*$/.test(span)) {
      out.push(span);
      folder = span.endsWith('/') ? span : path.posix.dirname(span) + '/';
    } else if (folder && FILE_NAME.test(span)) out.push(folder + span);
  }
  return out;
}

/** Problems of the sections of what is not a service, given what exists (`exists(path)`). */
function houseProblems(mapText, exists, subfolders) {
  const parts = sections(mapText);
  const problems = [];
  for (const { heading, folder } of HOUSE_SECTIONS) {
    if (!exists(folder)) continue;
    if (!parts.has(heading)) {
      problems.push(`section "${heading}": missing`);
      continue;
    }
    for (const cells of rows(parts.get(heading)))
      for (const p of rowPaths(cells)) if (!exists(p)) problems.push(`${p}: named in "${heading}", does not exist`);
  }
  const named = [...codeSpans(mapText)].map((s) => s.replace(/\/$/, ''));
  for (const folder of subfolders) {
    if (!named.some((s) => s === folder || s.startsWith(`${folder}/`))) problems.push(`${folder}: not named in ${MAP}`);
  }
  return problems;
}

/** The endpoints of a section's rows: `GET /v1/sms/status/{message_id}`. */
function endpointsOf(text) {
  const out = [];
  for (const cells of rows(text)) {
    let method;
    let route;
    for (const span of codeSpans(cells[0])) {
      const full = /^([A-Z]+)\s+(\/\S*)$/.exec(span);
      if (full && METHODS.includes(full[1].toLowerCase())) [method, route] = [full[1], full[2]];
      else if (method && span.startsWith('/') && !/\s/.test(span)) route = span;
      else if (route && /^[\w.:{}-]+$/.test(span)) route = route.replace(/[^/]*$/, span);
      else continue;
      out.push(`${method} ${route.replace(/:(\w+)/g, '{$1}')}`);
    }
  }
  return out;
}

/** The endpoints of an OpenAPI document: `GET /v1/sms/history`. */
function documented(openApi) {
  return Object.entries(openApi.paths ?? {}).flatMap(([route, item]) =>
    Object.keys(item)
      .filter((k) => METHODS.includes(k))
      .map((k) => `${k.toUpperCase()} ${route}`),
  );
}

/** The endpoint rows of the map against the OpenAPI document. */
function endpointProblems(mapText, openApi) {
  const parts = sections(mapText);
  const inDocument = new Set(documented(openApi));
  const withRow = new Set(endpointsOf(parts.get(ENDPOINTS)));
  const problems = [];
  for (const e of inDocument) if (!withRow.has(e)) problems.push(`${e}: in the OpenAPI document, without a row in "${ENDPOINTS}"`);
  for (const e of withRow) if (!inDocument.has(e)) problems.push(`${e}: a row of "${ENDPOINTS}", not in the OpenAPI document`);
  for (const e of endpointsOf(parts.get(OUTSIDE)))
    if (inDocument.has(e)) problems.push(`${e}: in "${OUTSIDE}", but the OpenAPI document has it`);
  return problems;
}

const subfoldersOf = (root, parent) =>
  fs.existsSync(path.join(root, parent))
    ? fs
        .readdirSync(path.join(root, parent), { withFileTypes: true })
        .filter((e) => e.isDirectory() && e.name !== 'node_modules')
        .map((e) => `${parent}/${e.name}`)
        .sort()
    : [];

/** The findings of the code map of the repository at `root`. */
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
  const mapText = fs.readFileSync(path.join(root, MAP), 'utf8');
  const exists = (p) => fs.existsSync(path.join(root, p));
  const problems = [
    ...houseProblems(
      mapText,
      exists,
      HOUSE_PARENTS.flatMap((p) => subfoldersOf(root, p)),
    ),
    ...(exists(OPENAPI)
      ? endpointProblems(mapText, JSON.parse(fs.readFileSync(path.join(root, OPENAPI), 'utf8')))
      : [`${OPENAPI}: no OpenAPI document to compare the endpoint rows with`]),
  ];
  return { files, missing: unmapped(mapText, filesByService), problems };
}

if (require.main === module) {
  const root = path.resolve(process.argv.find((a) => a.startsWith('--root='))?.slice(7) ?? path.join(__dirname, '../../..'));
  const { files, missing, problems } = check(root);
  for (const file of missing) console.log(`${file}: not in ${MAP}`);
  for (const problem of problems) console.log(problem);
  console.log(`${files} files under services/*/src, ${missing.length} missing from ${MAP}; ${problems.length} other findings`);
  if (missing.length > 0 || problems.length > 0) process.exitCode = 1;
}

module.exports = { check, unmapped, houseProblems, endpointProblems, endpointsOf };
