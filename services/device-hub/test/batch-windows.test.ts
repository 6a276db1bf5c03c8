import { ConfigError } from '@smsgw/platform';
import { loadDeviceHubConfig } from '../src/config';

/**
 * The hub's two batch windows: claims and acknowledgements, on which an idle phone's SMS waits,
 * leave after 20 ms; reports, on which only their events wait, after 100 ms. Each can be set
 * from 0 to 1000 ms, and a value outside that stops the hub at start.
 */
describe('the hub batch windows', () => {
  // What the hub needs besides, so that only the windows are in question.
  const base = { DATABASE_URL: 'postgres://127.0.0.1/hub', TLS_CERT_FILE: 'hub.pem', TLS_KEY_FILE: 'hub.key', GRPC_TLS: 'off' };
  const load = (env: NodeJS.ProcessEnv) => loadDeviceHubConfig({ ...base, ...env });
  const problems = (env: NodeJS.ProcessEnv): string => {
    try {
      load(env);
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as ConfigError).problems.join('\n');
    }
    return '';
  };

  it('when nothing is set, then claims wait 20 ms for others and reports 100 ms', () => {
    const { dispatch } = load({});
    expect(dispatch.batchWindowMs).toBe(20);
    expect(dispatch.reportWindowMs).toBe(100);
  });

  it('when REPORT_BATCH_WINDOW_MS is set, then only the reports window changes', () => {
    const { dispatch } = load({ REPORT_BATCH_WINDOW_MS: '0' });
    expect(dispatch.reportWindowMs).toBe(0);
    expect(dispatch.batchWindowMs).toBe(20);
  });

  it('when a window is outside 0 to 1000 ms, then the hub refuses to start and names it', () => {
    expect(problems({ REPORT_BATCH_WINDOW_MS: '1001' })).toMatch(/REPORT_BATCH_WINDOW_MS="1001"/);
    expect(problems({ REPORT_BATCH_WINDOW_MS: '-1' })).toMatch(/REPORT_BATCH_WINDOW_MS="-1"/);
    expect(problems({ REPORT_BATCH_WINDOW_MS: '1000' })).toBe('');
  });
});
