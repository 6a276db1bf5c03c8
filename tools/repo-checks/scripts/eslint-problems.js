#!/usr/bin/env node
// Lints the files or folders given with the repository's eslint.config.mjs, through the ESLint
// Node API, and prints their problems as JSON: for the tests, since jest cannot load that
// configuration (an ES module) in its own module system. The configuration's ignores are not
// applied (`ignore: false`): the fixtures it ignores on purpose are what the tests lint.
'use strict';
const path = require('node:path');
const { ESLint } = require('eslint');

const ROOT = path.resolve(__dirname, '../../..');

/** Each file linted (relative to the repository) with its problems: rule, line and message. */
async function eslintProblems(targets) {
  const eslint = new ESLint({ cwd: ROOT, overrideConfigFile: path.join(ROOT, 'eslint.config.mjs'), ignore: false });
  const results = await eslint.lintFiles(targets);
  return results.map((r) => ({
    file: path.relative(ROOT, r.filePath),
    problems: r.messages.map((m) => ({ rule: m.ruleId, line: m.line, message: m.message })),
  }));
}

if (require.main === module) {
  eslintProblems(process.argv.slice(2)).then(
    (files) => process.stdout.write(JSON.stringify(files)),
    (err) => {
      console.error(err);
      process.exitCode = 2;
    },
  );
}

module.exports = { eslintProblems };
