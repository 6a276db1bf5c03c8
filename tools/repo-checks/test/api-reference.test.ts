import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');

describe('the API reference (docs/api/reference.md)', () => {
  it('when it is generated again from the OpenAPI document the gateway serves, then nothing changes', () => {
    const run = spawnSync(process.execPath, [path.join(ROOT, 'scripts/api-reference.js'), '--check'], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it('when a reader looks for an endpoint of the OpenAPI document, then the reference has a section for it', () => {
    const openapi = JSON.parse(fs.readFileSync(path.join(ROOT, 'services/gateway/src/openapi/openapi.json'), 'utf8')) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const reference = fs.readFileSync(path.join(ROOT, 'docs/api/reference.md'), 'utf8');
    const operations = Object.entries(openapi.paths).flatMap(([route, item]) =>
      Object.keys(item).map((method) => `### ${method.toUpperCase()} ${route}`),
    );
    expect(operations.length).toBeGreaterThan(9);
    for (const heading of operations) expect(reference).toContain(heading);
  });
});
