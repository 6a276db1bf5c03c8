#!/usr/bin/env node
// Writes docs/api/reference.md from the OpenAPI document the gateway serves
// (services/gateway/src/openapi/openapi.json), so that the reference readers browse and the
// contract the gateway is tested against are one text. `--check` only compares and exits 1 when
// the committed reference is out of date (make test runs it through tools/repo-checks).
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..');
const SOURCE = path.join(ROOT, 'services/gateway/src/openapi/openapi.json');
const TARGET = path.join(ROOT, 'docs/api/reference.md');

/** Follows a local `$ref` ("#/components/schemas/X") to what it names. */
function deref(doc, node) {
  let seen = 0;
  while (node && node.$ref) {
    if (++seen > 20) throw new Error(`$ref loop at ${node.$ref}`);
    const target = node.$ref
      .replace(/^#\//, '')
      .split('/')
      .reduce((o, k) => o?.[k], doc);
    if (!target) throw new Error(`unresolved $ref ${node.$ref}`);
    // A $ref's siblings (a description, say) override what it points to, as in OpenAPI 3.1.
    const { $ref: _ref, ...siblings } = node;
    node = { ...target, ...siblings };
  }
  return node;
}

/** allOf parts merged into one object schema (properties and required lists joined). */
function flatten(doc, schema) {
  schema = deref(doc, schema);
  if (!schema.allOf) return schema;
  const merged = { ...schema, allOf: undefined, properties: {}, required: [] };
  for (const part of schema.allOf.map((p) => flatten(doc, p))) {
    Object.assign(merged.properties, part.properties ?? {});
    merged.required.push(...(part.required ?? []));
    if (part.description && !merged.description) merged.description = part.description;
  }
  merged.properties = { ...merged.properties, ...(schema.properties ?? {}) };
  return merged;
}

/**
 * The status of a shared response that no operation names (the server answers it before routing:
 * 405, 408, 431), from the HTTP reason phrase its name spells.
 */
const STATUS_OF_NAME = {
  BadRequest: '400',
  Unauthorized: '401',
  Forbidden: '403',
  NotFound: '404',
  MethodNotAllowed: '405',
  RequestTimeout: '408',
  Conflict: '409',
  Gone: '410',
  PayloadTooLarge: '413',
  UnprocessableContent: '422',
  TooManyRequests: '429',
  HeadersTooLarge: '431',
  InternalError: '500',
  ServiceUnavailable: '503',
};

const cell = (text) =>
  String(text ?? '')
    .replace(/\|/g, '\\|')
    .replace(/\s*\n\s*/g, ' ');

/** A short type label: "string (date-time)", "integer 1–5", "array of object", "one of a, b". */
function typeOf(doc, schema) {
  schema = flatten(doc, schema);
  if (schema.const !== undefined) return `\`${JSON.stringify(schema.const)}\``;
  if (schema.enum) return `one of ${schema.enum.map((v) => `\`${v}\``).join(', ')}`;
  if (schema.oneOf || schema.anyOf) return (schema.oneOf ?? schema.anyOf).map((s) => typeOf(doc, s)).join(' or ');
  let type = Array.isArray(schema.type) ? schema.type.join(' or ') : (schema.type ?? 'any');
  if (type.startsWith('array') && schema.items) type = `array of ${typeOf(doc, schema.items)}`;
  if (schema.format) type += ` (${schema.format})`;
  const bounds = [];
  if (schema.minimum !== undefined || schema.maximum !== undefined) bounds.push(`${schema.minimum ?? ''}–${schema.maximum ?? ''}`);
  if (schema.minLength !== undefined || schema.maxLength !== undefined)
    bounds.push(`${schema.minLength ?? 0}–${schema.maxLength ?? '…'} characters`);
  if (schema.maxItems !== undefined) bounds.push(`at most ${schema.maxItems} items`);
  if (schema.default !== undefined) bounds.push(`default \`${JSON.stringify(schema.default)}\``);
  return bounds.length ? `${type}, ${bounds.join(', ')}` : type;
}

/** Rows of a fields table, nested objects and arrays of objects flattened as `a.b` and `a[].b`. */
function fieldRows(doc, schema, prefix = '', depth = 0) {
  schema = flatten(doc, schema);
  const required = new Set(schema.required ?? []);
  const rows = [];
  for (const [name, raw] of Object.entries(schema.properties ?? {})) {
    const prop = flatten(doc, raw);
    const field = `${prefix}${name}`;
    rows.push(`| \`${field}\` | ${cell(typeOf(doc, prop))} | ${required.has(name) ? 'yes' : 'no'} | ${cell(prop.description)} |`);
    if (depth < 3 && prop.properties) rows.push(...fieldRows(doc, prop, `${field}.`, depth + 1));
    const items = prop.items && flatten(doc, prop.items);
    if (depth < 3 && items?.properties) rows.push(...fieldRows(doc, items, `${field}[].`, depth + 1));
  }
  return rows;
}

function fieldsTable(doc, schema) {
  const rows = fieldRows(doc, schema);
  if (rows.length === 0) return '';
  return ['| field | type | required | notes |', '|---|---|---|---|', ...rows, ''].join('\n');
}

const anchor = (method, route) =>
  `${method} ${route}`
    .toLowerCase()
    .replace(/[^a-z0-9 _-]/g, '')
    .replace(/ /g, '-');

function operation(doc, route, method, op) {
  const out = [`### ${method.toUpperCase()} ${route}`, ''];
  if (op.summary) out.push(`**${op.summary}.** ${op.description ?? ''}`.trim(), '');
  const scopes = op['x-key-scopes'];
  if (scopes) out.push(scopes.length ? `Key scopes: ${scopes.map((s) => `\`${s}\``).join(' or ')}.` : 'Key scopes: any key.', '');
  const params = (op.parameters ?? []).map((p) => deref(doc, p));
  if (params.length) {
    out.push('| parameter | in | type | required | notes |', '|---|---|---|---|---|');
    for (const p of params)
      out.push(
        `| \`${p.name}\` | ${p.in} | ${cell(typeOf(doc, p.schema ?? {}))} | ${p.required ? 'yes' : 'no'} | ${cell(p.description)} |`,
      );
    out.push('');
  }
  const body = op.requestBody && deref(doc, op.requestBody).content?.['application/json']?.schema;
  if (body) out.push('Request body (JSON):', '', fieldsTable(doc, body));
  const ok = op.responses?.['200'] && deref(doc, op.responses['200']);
  const okSchema = ok?.content?.['application/json']?.schema;
  if (okSchema) out.push(`Answer \`200\`${ok.description ? `: ${ok.description}` : ''}`, '', fieldsTable(doc, okSchema));
  const errors = Object.entries(op.responses ?? {}).filter(([status]) => status !== '200');
  if (errors.length) {
    out.push('| status | when |', '|---|---|');
    for (const [status, raw] of errors) {
      const r = deref(doc, raw);
      out.push(`| ${status} | ${cell(r.description)} |`);
    }
    out.push('');
  }
  return out.join('\n');
}

function render(doc) {
  const out = [
    '<!-- Generated by scripts/api-reference.js from services/gateway/src/openapi/openapi.json: edit the OpenAPI document, then run `node scripts/api-reference.js`. -->',
    '',
    `# ${doc.info.title} reference (version ${doc.info.version})`,
    '',
    doc.info.description,
    '',
    'The machine-readable form of this page is the OpenAPI 3.1 document: [`openapi.json`](../../services/gateway/src/openapi/openapi.json), also served by every gateway at `GET /v1/openapi.json`.',
    '',
    'This page lists what each endpoint takes and answers. How to use them (a first request, sending, one-time passwords, webhooks, test mode, errors) is in the [guides for API users](README.md).',
    '',
    '## Authentication',
    '',
    '| header | notes |',
    '|---|---|',
    ...Object.values(doc.components.securitySchemes).map((s) => `| \`${s.name}\` | ${cell(s.description)} |`),
    '',
    '## Endpoints',
    '',
  ];
  const ops = [];
  for (const [route, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item))
      if (['get', 'post', 'put', 'patch', 'delete'].includes(method)) ops.push({ route, method, op });
  }
  for (const tag of doc.tags) {
    const mine = ops.filter((o) => (o.op.tags ?? [])[0] === tag.name);
    if (mine.length === 0) continue;
    out.push(`**${tag.name}**: ${tag.description}`, '');
    for (const o of mine) out.push(`- [\`${o.method.toUpperCase()} ${o.route}\`](#${anchor(o.method, o.route)}): ${o.op.summary ?? ''}`);
    out.push('');
  }
  for (const o of ops) out.push(operation(doc, o.route, o.method, o.op));
  out.push('## Errors', '', 'Every failure answers the error envelope:', '', fieldsTable(doc, doc.components.schemas.Error));
  out.push('| status | codes |', '|---|---|');
  const rows = Object.entries(doc.components.responses).map(([name, raw]) => {
    const status =
      Object.entries(doc.paths)
        .flatMap(([, item]) => Object.values(item))
        .flatMap((op) => Object.entries(op.responses ?? {}))
        .find(([, resp]) => resp.$ref === `#/components/responses/${name}`)?.[0] ?? STATUS_OF_NAME[name];
    return { status: status ?? name, description: deref(doc, raw).description };
  });
  rows.sort((a, b) => String(a.status).localeCompare(String(b.status), 'en', { numeric: true }));
  for (const row of rows) out.push(`| ${row.status} | ${cell(row.description)} |`);
  out.push('');
  return `${out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`;
}

const text = render(JSON.parse(fs.readFileSync(SOURCE, 'utf8')));
if (process.argv.includes('--check')) {
  const current = fs.existsSync(TARGET) ? fs.readFileSync(TARGET, 'utf8') : '';
  if (current !== text) {
    console.error(`${path.relative(ROOT, TARGET)} is out of date with the OpenAPI document: run node scripts/api-reference.js`);
    process.exit(1);
  }
  console.log(`${path.relative(ROOT, TARGET)} is up to date`);
} else {
  fs.mkdirSync(path.dirname(TARGET), { recursive: true });
  fs.writeFileSync(TARGET, text);
  console.log(`wrote ${path.relative(ROOT, TARGET)}`);
}
