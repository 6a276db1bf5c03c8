import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const SCRIPT = path.join(ROOT, 'scripts/client-types.js');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const generator = require(SCRIPT) as {
  generate(doc: unknown): Record<'ts' | 'py' | 'go', string>;
  TARGETS: Record<'ts' | 'py' | 'go', string>;
  SOURCE: string;
};
interface Doc {
  paths: Record<string, unknown>;
  components: { schemas: Record<string, { properties: Record<string, unknown> }> };
}
const openapi = () => JSON.parse(fs.readFileSync(path.join(ROOT, generator.SOURCE), 'utf8')) as Doc;

describe('the types generated from the OpenAPI document (scripts/client-types.js)', () => {
  it('when they are generated again into a temporary folder, then the committed TypeScript, Python and Go files are the same, byte for byte', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'client-types-'));
    try {
      const run = spawnSync(process.execPath, [SCRIPT, '--out', dir], { encoding: 'utf8' });
      expect(run.stderr).toBe('');
      expect(run.status).toBe(0);
      for (const rel of Object.values(generator.TARGETS)) {
        expect({ file: rel, text: fs.readFileSync(path.join(dir, rel), 'utf8') }).toEqual({
          file: rel,
          text: fs.readFileSync(path.join(ROOT, rel), 'utf8'),
        });
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('when the check mode runs on the repository, then it passes', () => {
    const run = spawnSync(process.execPath, [SCRIPT, '--check'], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it("when the document gains a field or an endpoint, then every language's file changes", () => {
    const before = generator.generate(openapi());
    const doc = openapi();
    doc.components.schemas.SendResponse!.properties.carrier = { type: 'string' };
    const afterField = generator.generate(doc);
    doc.paths['/v1/sms/resend'] = {
      post: {
        operationId: 'resendSms',
        tags: ['sms'],
        responses: { 200: { content: { 'application/json': { schema: { $ref: '#/components/schemas/SendResponse' } } } } },
      },
    };
    const afterPath = generator.generate(doc);
    for (const lang of ['ts', 'py', 'go'] as const) {
      expect(afterField[lang]).not.toBe(before[lang]);
      expect(afterField[lang]).toContain('carrier');
      expect(afterPath[lang]).toContain('/v1/sms/resend');
    }
  });

  it('when the document uses a construct the generator does not know, then it stops instead of writing a wrong type', () => {
    const doc = openapi();
    doc.components.schemas.SendResponse!.properties.odd = { type: 'object', properties: { x: { type: 'string' } } };
    expect(() => generator.generate(doc)).toThrow(/needs a name/);
  });
});
