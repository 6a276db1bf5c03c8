import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.resolve(__dirname, '../../..');
const FIXTURES = 'tools/repo-checks/test/fixtures/import-cycle';

interface Linted {
  file: string;
  problems: { rule: string | null; line: number; message: string }[];
}

/**
 * What the repository's ESLint configuration finds in a fixture folder (scripts/eslint-problems.js:
 * the ESLint Node API, in a process of its own). eslint.config.mjs ignores the fixtures, so that
 * `npm run lint` does not report the cycle they hold on purpose; the script lints them anyway.
 */
async function lint(folder: string): Promise<Linted[]> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [path.join(__dirname, '../scripts/eslint-problems.js'), `${FIXTURES}/${folder}`],
    { cwd: ROOT },
  );
  return (JSON.parse(stdout) as Linted[]).sort((a, b) => a.file.localeCompare(b.file));
}

const rulesOf = (linted: Linted[]) => linted.map((f) => ({ file: path.basename(f.file), rules: f.problems.map((p) => p.rule) }));

describe('the import-x/no-cycle lint rule, as eslint.config.mjs sets it', () => {
  it('when two .ts files import each other, then ESLint reports import-x/no-cycle in each, and nothing else', async () => {
    const linted = await lint('cycle');
    expect(rulesOf(linted)).toEqual([
      { file: 'ping.ts', rules: ['import-x/no-cycle'] },
      { file: 'pong.ts', rules: ['import-x/no-cycle'] },
    ]);
    expect(linted[0]!.problems[0]).toMatchObject({ line: 3, message: expect.stringMatching(/dependency cycle/i) });
  }, 60_000);

  it('when a .ts file imports another that imports nothing back, then ESLint reports nothing', async () => {
    expect(rulesOf(await lint('no-cycle'))).toEqual([
      { file: 'count.ts', rules: [] },
      { file: 'step.ts', rules: [] },
    ]);
  }, 60_000);
});
