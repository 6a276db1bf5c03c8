import { spawnSync } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const SCRIPT = path.join(__dirname, '../scripts/code-map-check.js');
// The check is plain JavaScript that a developer can also run alone (node scripts/code-map-check.js).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { check, unmapped, houseProblems, endpointProblems } = require('../scripts/code-map-check.js') as {
  check(root: string): { files: number; missing: string[]; problems: string[] };
  unmapped(mapText: string, filesByService: Record<string, string[]>): string[];
  houseProblems(mapText: string, exists: (p: string) => boolean, subfolders: string[]): string[];
  endpointProblems(mapText: string, openApi: { paths: Record<string, Record<string, unknown>> }): string[];
};
const ROWS = "Where each public endpoint's rules live";

const MAP = [
  '# Code map',
  '## The shape of a service',
  '| `src/main.ts` | the composition root |',
  '## gateway',
  '| `src/http/routes/sms.routes.ts` | the SMS endpoints |',
  '| `src/use-cases/send-sms.use-case.ts`, `history.use-case.ts` | sends; history |',
  '## account',
  '| `src/domain/password.ts` | the password rules |',
].join('\n');

describe('the code map (docs/contributors/code-map.md) against services/*/src', () => {
  it('when every .ts file under services/*/src is listed, then the code map names each one', () => {
    const { files, missing } = check(ROOT);
    expect(files).toBeGreaterThan(100);
    expect(missing).toEqual([]);
  });

  it('when the rest of the house and the OpenAPI document are read, then the map names every package, tool and library, its paths exist and its endpoint rows are the paths of the document', () => {
    expect(check(ROOT).problems).toEqual([]);
  });

  it("when a file is named by its path or its file name in its service's section, or is one every service has, then it is mapped; otherwise it is reported", () => {
    expect(
      unmapped(MAP, {
        gateway: ['src/main.ts', 'src/http/routes/sms.routes.ts', 'src/use-cases/history.use-case.ts', 'src/http/routes/inbox.routes.ts'],
        account: ['src/main.ts', 'src/domain/password.ts', 'src/use-cases/history.use-case.ts'],
        otp: ['src/domain/otp-code.ts'],
      }),
    ).toEqual([
      // Named in the gateway's section only.
      'services/account/src/use-cases/history.use-case.ts',
      'services/gateway/src/http/routes/inbox.routes.ts',
      // A service without a section.
      'services/otp/src/domain/otp-code.ts',
    ]);
  });

  it('when the OpenAPI document has a path that no endpoint row names (fixtures/code-map-missing-row), then the check names it and exits 1', () => {
    const fixture = path.join(__dirname, 'fixtures/code-map-missing-row');
    expect(check(fixture).problems).toEqual([`GET /v1/sms/inbox: in the OpenAPI document, without a row in "${ROWS}"`]);
    const run = spawnSync(process.execPath, [SCRIPT, `--root=${fixture}`], { encoding: 'utf8' });
    expect(run.status).toBe(1);
    expect(run.stdout).toContain('GET /v1/sms/inbox: in the OpenAPI document, without a row');
  });

  it('when a row names an endpoint the document does not have, or the outside table one it has, then each is reported; a bare name and :params read as the document writes them', () => {
    const map = [
      `## ${ROWS}`,
      '| endpoint | gateway |',
      '|---|---|',
      '| `POST /v1/sms/send-bulk`, `send-bulk-personalized` | bulk |',
      '| `DELETE /v1/opt-outs/:phone_number` | remove |',
      '| `GET /v1/sms/outbox` | gone |',
      '## Endpoints outside the OpenAPI document',
      '| `GET /healthz`, `/v1/openapi.json` | probes |',
    ].join('\n');
    const openApi = {
      paths: {
        '/v1/sms/send-bulk': { post: {} },
        '/v1/sms/send-bulk-personalized': { post: {} },
        '/v1/opt-outs/{phone_number}': { delete: {}, parameters: [] },
        '/healthz': { get: {} },
      },
    };
    expect(endpointProblems(map, openApi)).toEqual([
      `GET /healthz: in the OpenAPI document, without a row in "${ROWS}"`,
      `GET /v1/sms/outbox: a row of "${ROWS}", not in the OpenAPI document`,
      'GET /healthz: in "Endpoints outside the OpenAPI document", but the OpenAPI document has it',
    ]);
  });

  it('when a section of the house names a path that does not exist, lacks its section, or a package is named nowhere, then each is reported', () => {
    const map = [
      '## The Node agent (android-agent/src)',
      '| path | what |',
      '|---|---|',
      '| `android-agent/src/agent.ts`, `outbox.ts`, `gone.ts` | the agent; `java.net` is no file |',
      '| `~/.config/smsgw/config.json`, `android-agent/src/drivers/` | not a path of the tree; a folder |',
      '## The other packages and tools',
      '| `packages/cli/` | the CLI |',
    ].join('\n');
    const present = new Set([
      'android-agent/src',
      'android-agent/src/agent.ts',
      'android-agent/src/outbox.ts',
      'android-agent/src/drivers/',
      'packages',
      'packages/cli/',
      'android-agent/android',
    ]);
    expect(houseProblems(map, (p) => present.has(p), ['packages/cli', 'packages/stack'])).toEqual([
      'section "The Android app (android-agent/android)": missing',
      'android-agent/src/gone.ts: named in "The Node agent (android-agent/src)", does not exist',
      'packages/stack: not named in docs/contributors/code-map.md',
    ]);
  });
});
