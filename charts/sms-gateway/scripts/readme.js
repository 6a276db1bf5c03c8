#!/usr/bin/env node
// Writes the "## Parameters" section of each chart's README.md (this chart and the bundled ones in
// charts/) from the `## @section` and `## @param <path> <description>` comments of its values.yaml,
// in the format of Bitnami's readme-generator-for-helm, and refuses a value without its @param or a
// @param that names no value. The rest of each README is written by hand.
//
//   node scripts/readme.js           rewrite the READMEs
//   node scripts/readme.js --check   exit 1 when a README is out of date or a value is undocumented
//
// test/readme.test.ts runs the same check. Bitnami's modifiers (`[array]`, `@skip`, `@extra` ...)
// are not supported: every value is documented by a @param of its own path or of a parent's.
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const YAML = require('yaml');

const HEADING = '## Parameters';

/**
 * The sections and parameters documented in a values.yaml's comments, in their order. The `##`
 * lines right after an `@section` line are the section's description.
 */
function parseDoc(valuesText) {
  const sections = [];
  let section;
  let inDescription = false;
  for (const line of valuesText.split('\n')) {
    const comment = /^\s*##(?: (.*))?$/.exec(line);
    const text = comment ? (comment[1] ?? '').trim() : undefined;
    const sectionMatch = text === undefined ? null : /^@section (.+)$/.exec(text);
    const paramMatch = text === undefined ? null : /^@param (\S+)(?: (.*))?$/.exec(text);
    if (sectionMatch) {
      section = { title: sectionMatch[1].trim(), description: [], params: [] };
      sections.push(section);
      inDescription = true;
    } else if (paramMatch) {
      if (!section) {
        section = { title: 'Parameters', description: [], params: [] };
        sections.push(section);
      }
      section.params.push({ path: paramMatch[1], description: (paramMatch[2] ?? '').trim() });
      inDescription = false;
    } else if (inDescription && text) {
      section.description.push(text);
    } else {
      inDescription = false;
    }
  }
  return sections;
}

const isMap = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The value at a dotted path, or `undefined` when the path names nothing. */
function lookup(values, dotted) {
  let v = values;
  for (const key of dotted.split('.')) {
    if (!isMap(v) || !Object.prototype.hasOwnProperty.call(v, key)) return undefined;
    v = v[key];
  }
  return v;
}

/**
 * What is wrong with the documentation of one values.yaml: values with no @param of their own
 * or of a parent's (a non-empty map needs none when each of its keys has one), @params that name
 * no value, @params given twice, @params without a description.
 */
function problems(valuesText) {
  const values = YAML.parse(valuesText) ?? {};
  const params = parseDoc(valuesText).flatMap((s) => s.params);
  const documented = new Set();
  const out = [];
  for (const p of params) {
    if (documented.has(p.path)) out.push(`@param ${p.path} is given twice`);
    documented.add(p.path);
    if (lookup(values, p.path) === undefined) out.push(`@param ${p.path} names no value`);
    if (!p.description) out.push(`@param ${p.path} has no description`);
  }
  const walk = (v, prefix) => {
    for (const [key, child] of Object.entries(v)) {
      const p = prefix ? `${prefix}.${key}` : key;
      if (documented.has(p)) continue;
      if (isMap(child) && Object.keys(child).length > 0) walk(child, p);
      else out.push(`${p} has no @param`);
    }
  };
  walk(values, '');
  return out;
}

/** A default as Bitnami's tables show it: scalars bare, empty strings as "", the rest as JSON. */
function cell(value) {
  let text;
  if (value === null) text = 'nil';
  else if (value === '') text = '""';
  else if (typeof value === 'string') text = value;
  else text = JSON.stringify(value);
  return `\`${text.replace(/\|/g, '\\|')}\``;
}

/** The "## Parameters" section: one table per @section, with the section's description. */
function parametersSection(valuesText) {
  const values = YAML.parse(valuesText) ?? {};
  const out = [HEADING, ''];
  for (const s of parseDoc(valuesText)) {
    out.push(`### ${s.title}`, '');
    if (s.description.length) out.push(s.description.join('\n'), '');
    if (!s.params.length) continue;
    out.push('| Name | Description | Value |', '| ---- | ----------- | ----- |');
    for (const p of s.params) {
      out.push(`| \`${p.path}\` | ${p.description.replace(/\|/g, '\\|')} | ${cell(lookup(values, p.path))} |`);
    }
    out.push('');
  }
  return out.join('\n');
}

/** The README with its "## Parameters" section (up to the next `## ` heading) regenerated. */
function renderReadme(readmeText, valuesText) {
  const lines = readmeText.split('\n');
  const start = lines.indexOf(HEADING);
  if (start < 0) throw new Error(`the README has no "${HEADING}" heading to fill`);
  let end = lines.findIndex((l, i) => i > start && /^## /.test(l));
  if (end < 0) end = lines.length;
  const after = lines.slice(end);
  const generated = parametersSection(valuesText).split('\n');
  return [...lines.slice(0, start), ...generated, ...(after.length ? after : [''])].join('\n').replace(/\n*$/, '\n');
}

/** This chart's directory and each bundled chart's that has a values.yaml. */
function chartDirs(root = path.resolve(__dirname, '..')) {
  const sub = path.join(root, 'charts');
  const bundled = fs.existsSync(sub)
    ? fs
        .readdirSync(sub)
        .map((d) => path.join(sub, d))
        .filter((d) => fs.existsSync(path.join(d, 'values.yaml')))
        .sort()
    : [];
  return [root, ...bundled];
}

function main(check) {
  let failed = false;
  for (const dir of chartDirs()) {
    const name = path.relative(path.resolve(__dirname, '..', '..', '..'), dir);
    const valuesText = fs.readFileSync(path.join(dir, 'values.yaml'), 'utf8');
    for (const p of problems(valuesText)) {
      console.error(`${name}/values.yaml: ${p}`);
      failed = true;
    }
    const readmeFile = path.join(dir, 'README.md');
    const current = fs.readFileSync(readmeFile, 'utf8');
    const wanted = renderReadme(current, valuesText);
    if (current === wanted) continue;
    if (check) {
      console.error(`${name}/README.md is out of date: run node ${path.relative(process.cwd(), __filename)}`);
      failed = true;
    } else {
      fs.writeFileSync(readmeFile, wanted);
      console.log(`wrote ${name}/README.md`);
    }
  }
  if (failed) process.exitCode = 1;
}

module.exports = { parseDoc, problems, parametersSection, renderReadme, chartDirs };

if (require.main === module) main(process.argv.includes('--check'));
