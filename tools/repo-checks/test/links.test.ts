import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
// The checker is plain JavaScript that `make test` and a developer can also run alone.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { check } = require(path.join(ROOT, 'scripts/check-links.js')) as {
  check(root: string): { files: number; problems: { where: string; target: string; reason: string }[] };
};

describe('the links of the repository documents (scripts/check-links.js)', () => {
  it('when every Markdown document of the repository is read, then each link stays inside the repository and names something that exists', () => {
    const { files, problems } = check(ROOT);
    expect(files).toBeGreaterThan(5);
    expect(problems).toEqual([]);
  });

  it('when a document links outside the repository, to a missing file or to a missing heading, then each is reported with its line', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'links-'));
    try {
      execFileSync('git', ['init', '-q'], { cwd: dir });
      fs.mkdirSync(path.join(dir, 'docs'));
      fs.writeFileSync(path.join(dir, 'docs/guide.md'), '# Guide\n\n## Sending `SMS` fast\n\ntext\n');
      fs.writeFileSync(
        path.join(dir, 'README.md'),
        [
          '# Project',
          'Fine: [guide](docs/guide.md), [part](docs/guide.md#sending-sms-fast), [self](#project), [web](https://example.com/x.md).',
          'Outside: [spec](../shared/spec/api-spec.md).',
          'Missing: [gone](docs/gone.md).',
          'No heading: [part](docs/guide.md#receiving).',
          '```',
          '[not a link](inside/a/code/block.md)',
          '```',
        ].join('\n'),
      );
      const { problems } = check(dir);
      expect(problems).toEqual([
        { where: 'README.md:3', target: '../shared/spec/api-spec.md', reason: 'leaves the repository' },
        { where: 'README.md:4', target: 'docs/gone.md', reason: 'names a file that does not exist' },
        { where: 'README.md:5', target: 'docs/guide.md#receiving', reason: 'names no heading of docs/guide.md' },
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
