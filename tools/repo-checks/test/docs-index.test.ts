import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { linksOf } = require(path.join(ROOT, 'scripts/check-links.js')) as {
  linksOf(text: string): { target: string; line: number }[];
};

/** The files a document links to, relative to the repository root, anchors dropped. */
function linkedFiles(file: string): Set<string> {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  return new Set(
    linksOf(text)
      .map((l) => l.target)
      .filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t) && !t.startsWith('#'))
      .map((t) => path.relative(ROOT, path.resolve(path.dirname(path.join(ROOT, file)), decodeURI(t).split('#')[0]!))),
  );
}

describe('the documentation by audience', () => {
  it('when the docs folder is listed, then its index (docs/README.md) links every page of it', () => {
    const pages = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', 'docs/*.md'], {
      cwd: ROOT,
      encoding: 'utf8',
    })
      .split('\n')
      .filter((f) => f && f !== 'docs/README.md' && fs.existsSync(path.join(ROOT, f)));
    expect(pages.length).toBeGreaterThan(10);
    const linked = linkedFiles('docs/README.md');
    expect(pages.filter((p) => !linked.has(p))).toEqual([]);
  });

  it('when the front page is read, then it stays short and sends each audience to its entry page', () => {
    const lines = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8').split('\n').length;
    expect(lines).toBeLessThanOrEqual(90);
    const linked = linkedFiles('README.md');
    for (const entry of [
      'docs/README.md',
      'docs/api/README.md',
      'docs/operators/README.md',
      'docs/owners/dashboard.md',
      'docs/contributors/README.md',
    ]) {
      expect(linked).toContain(entry);
    }
  });
});
