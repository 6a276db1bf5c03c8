import fs from 'node:fs';
import path from 'node:path';

const CHART = path.resolve(__dirname, '..');

interface ReadmeGenerator {
  problems(valuesText: string): string[];
  renderReadme(readmeText: string, valuesText: string): string;
  chartDirs(root?: string): string[];
}
// The generator is a plain Node script (scripts/readme.js) so that it runs without a build.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const generator = require(path.join(CHART, 'scripts', 'readme.js')) as ReadmeGenerator;

const charts = generator.chartDirs(CHART).map((dir) => [path.relative(path.dirname(CHART), dir), dir] as const);
const read = (dir: string, file: string) => fs.readFileSync(path.join(dir, file), 'utf8');

describe("each chart's README and the documentation of its values", () => {
  it('when the charts are listed, then the bundled ones are there too', () => {
    expect(charts.map(([name]) => name)).toEqual([
      'sms-gateway',
      'sms-gateway/charts/nats',
      'sms-gateway/charts/postgresql',
      'sms-gateway/charts/redis',
    ]);
  });

  it.each(charts)('when values.yaml of %s is read, then every value has a @param and every @param names a value', (_name, dir) => {
    expect(generator.problems(read(dir, 'values.yaml'))).toEqual([]);
  });

  it.each(charts)(
    'when the README of %s is generated again from values.yaml, then it is the committed one (else run `npm run readme -w @smsgw/chart`)',
    (_name, dir) => {
      const committed = read(dir, 'README.md');
      expect(generator.renderReadme(committed, read(dir, 'values.yaml'))).toBe(committed);
    },
  );

  it('when a value has no @param, a @param names no value, or one is given twice, then the check says so (the check can fail)', () => {
    const values = [
      '## @section Example',
      '## @param image.repository Image repository',
      '## @param image.repository Image repository again',
      'image:',
      '  repository: smsgw/sms-gateway',
      '  tag: ""',
      '## @param imagePullSecret Pull Secret',
      'imagePullSecrets: []',
      '## @param podSecurityContext Pod security context: documented as a whole',
      'podSecurityContext:',
      '  runAsNonRoot: true',
      '',
    ].join('\n');
    expect(generator.problems(values).sort()).toEqual([
      '@param image.repository is given twice',
      '@param imagePullSecret names no value',
      'image.tag has no @param',
      'imagePullSecrets has no @param',
    ]);
  });

  it('when a @param changes, then the regenerated README differs from the old one in that row only', () => {
    const dir = charts[0]![1];
    const values = read(dir, 'values.yaml').replace('## @param metrics.port Port of', '## @param metrics.port The port of');
    const before = read(dir, 'README.md').split('\n');
    const after = generator.renderReadme(read(dir, 'README.md'), values).split('\n');
    const changed = after.filter((line, i) => line !== before[i]);
    expect(changed).toEqual([expect.stringMatching(/^\| `metrics\.port` \| The port of .* \| `9464` \|$/)]);
  });
});
