#!/usr/bin/env node
// Checks every link of every Markdown document of the repository: a relative link must name a
// file or folder inside the repository that exists, and an anchor (#part) must name a heading
// of that document. Links to the web (http, https, mailto) are not followed. A clone holds only
// the repository, so a link that leaves it is broken for every reader. Exits 1 on any broken
// link and prints one line for each. `--json` prints the findings as JSON (for tests).
'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

const ROOT = path.resolve(process.argv.find((a) => a.startsWith('--root='))?.slice(7) ?? path.join(__dirname, '..'));

/** Every Markdown file git tracks or would track (untracked but not ignored). */
function markdownFiles(root) {
  const out = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z', '--', '*.md'], {
    cwd: root,
    encoding: 'utf8',
  });
  return [...new Set(out.split('\0').filter(Boolean))].filter((f) => fs.existsSync(path.join(root, f))).sort();
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to dashes. */
function slug(heading) {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links keep their text
    .replace(/<[^>]+>/g, '') // inline HTML
    .replace(/[*_`~]/g, (c) => (c === '_' ? '_' : '')); // emphasis and code marks
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors a document offers: its headings (duplicates numbered as GitHub does) and explicit ids. */
function anchorsOf(text) {
  const anchors = new Set();
  const counts = new Map();
  for (const line of stripFences(text).split('\n')) {
    const m = /^ {0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (m) {
      const base = slug(m[1]);
      const n = counts.get(base) ?? 0;
      counts.set(base, n + 1);
      anchors.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const id of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id[1]);
  }
  return anchors;
}

/** The text with fenced code blocks blanked, lines kept (a heading or link there is an example). */
function stripFences(text) {
  return text.replace(/^ {0,3}(```|~~~)[^\n]*\n[\s\S]*?^ {0,3}\1[^\n]*$/gm, (block) => block.replace(/[^\n]/g, ' '));
}

/** The text with code blocks and inline code spans blanked (links there are examples). */
function stripCode(text) {
  return stripFences(text).replace(/`[^`\n]*`/g, (span) => ' '.repeat(span.length));
}

/** [text](target "title"), ![alt](target), [ref]: target, href="target" and src="target". */
function linksOf(text) {
  const clean = stripCode(text);
  const links = [];
  const lineOf = (index) => clean.slice(0, index).split('\n').length;
  for (const m of clean.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
    links.push({ target: m[1], line: lineOf(m.index) });
  for (const m of clean.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+"[^"]*")?\s*$/gm))
    links.push({ target: m[1], line: lineOf(m.index) });
  for (const m of clean.matchAll(/\b(?:href|src)="([^"]+)"/g)) links.push({ target: m[1], line: lineOf(m.index) });
  return links;
}

function check(root) {
  const problems = [];
  const anchorCache = new Map();
  const anchorsOfFile = (file) => {
    if (!anchorCache.has(file)) anchorCache.set(file, anchorsOf(fs.readFileSync(file, 'utf8')));
    return anchorCache.get(file);
  };
  const files = markdownFiles(root);
  for (const rel of files) {
    const file = path.join(root, rel);
    for (const { target, line } of linksOf(fs.readFileSync(file, 'utf8'))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto: ...
      const [pathPart, anchor] = decodeURI(target).split('#');
      const resolved = pathPart ? path.resolve(path.dirname(file), pathPart.split('?')[0]) : file;
      const where = `${rel}:${line}`;
      if (path.relative(root, resolved).startsWith('..') || path.isAbsolute(path.relative(root, resolved))) {
        problems.push({ where, target, reason: 'leaves the repository' });
      } else if (!fs.existsSync(resolved)) {
        problems.push({ where, target, reason: 'names a file that does not exist' });
      } else if (anchor && resolved.endsWith('.md') && !anchorsOfFile(resolved).has(anchor)) {
        problems.push({ where, target, reason: `names no heading of ${path.relative(root, resolved)}` });
      }
    }
  }
  return { files: files.length, problems };
}

module.exports = { check, slug, anchorsOf, linksOf };

if (require.main === module) {
  const { files, problems } = check(ROOT);
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify({ files, problems }));
  } else {
    for (const p of problems) console.error(`${p.where}: ${p.target} ${p.reason}`);
    console.log(`${files} documents checked, ${problems.length} broken link${problems.length === 1 ? '' : 's'}`);
  }
  process.exit(problems.length > 0 ? 1 : 0);
}
