import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
// The check is plain JavaScript that a developer can also run alone (node scripts/long-files-check.js).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { check, inScope, unexplained, LIMIT } = require('../scripts/long-files-check.js') as {
  check(root: string): { files: number; long: number; missing: string[] };
  inScope(file: string): boolean;
  unexplained(files: Record<string, string>): string[];
  LIMIT: number;
};

/** A text of `n` lines of code after `head`. */
const file = (head: string, n: number) => head + 'x();\n'.repeat(n - head.split('\n').length + 1);

describe('long files say why at their top (docs/contributors/conventions.md#long-files)', () => {
  it('when the services, packages and tooling are read, then every file over 300 lines says why at its top', () => {
    const { files, long, missing } = check(ROOT);
    expect(files).toBeGreaterThan(300);
    expect(long).toBeGreaterThan(10);
    expect(missing).toEqual([]);
  });

  it('when a file is over 300 lines without a comment before its code, then it is reported; with one, or at 300 lines, it is not', () => {
    expect(LIMIT).toBe(300);
    expect(
      unexplained({
        'services/a/src/bare.ts': file("import x from 'x';\n", 301),
        'services/a/src/short.ts': file("import x from 'x';\n", 300),
        'services/a/src/why.ts': file("// Over 300 lines: one state machine.\nimport x from 'x';\n", 320),
        'scripts/tool.js': file("#!/usr/bin/env node\n'use strict';\n// Over 300 lines: three writers side by side.\n", 320),
        'scripts/late.js': file("#!/usr/bin/env node\n'use strict';\nconst a = 1; // not at the top\n", 320),
        'clients/go/client.go': file('// Over 300 lines: the client and its calls.\n\npackage smsgw\n', 320),
        'clients/go/bare.go': file('package smsgw\n\n// Client is the client.\n', 320),
        'clients/python/src/smsgw/_client.py': file('# Over 300 lines: the client and its calls.\n"""Docstring."""\n', 320),
        'clients/python/src/smsgw/bare.py': file('import re\n"""Not at the top."""\n', 320),
      }),
    ).toEqual(['clients/go/bare.go', 'clients/python/src/smsgw/bare.py', 'scripts/late.js', 'services/a/src/bare.ts']);
  });

  it('when a file is a test, generated, a benchmark or outside the services, packages and tools, then the rule does not count it', () => {
    expect(inScope('services/message/src/domain/received.ts')).toBe(true);
    expect(inScope('packages/stack/src/infra.ts')).toBe(true);
    expect(inScope('tools/repo-checks/scripts/long-files-check.js')).toBe(true);
    expect(inScope('clients/go/webhook.go')).toBe(true);
    expect(inScope('services/message/test/received-inbox.test.ts')).toBe(false);
    expect(inScope('tools/repo-checks/test/fixtures/cycle/a.ts')).toBe(false);
    expect(inScope('packages/client/src/gen/openapi-types.ts')).toBe(false);
    expect(inScope('clients/go/client_test.go')).toBe(false);
    expect(inScope('e2e/test/support/fuzz.ts')).toBe(false);
    expect(inScope('bench/run.js')).toBe(false);
  });
});
