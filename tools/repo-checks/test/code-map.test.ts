import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
// The check is plain JavaScript that a developer can also run alone (node scripts/code-map-check.js).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { check, unmapped } = require('../scripts/code-map-check.js') as {
  check(root: string): { files: number; missing: string[] };
  unmapped(mapText: string, filesByService: Record<string, string[]>): string[];
};

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
});
