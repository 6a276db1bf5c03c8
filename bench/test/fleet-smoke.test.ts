import { expectSucceeded, smoke } from './support/smoke';

describe('the fleet simulator benchmarks run end to end in smoke mode', () => {
  it('when the connections benchmark runs, then the fleet connects to a bare ws server and to the hub, and comes back after a restart of the hub, also behind a TLS-ending ingress', async () => {
    const run = await smoke('fleet/connections.js');
    expectSucceeded(run);
    expect(run.output).toMatch(/connections: 50 idle phones, hub -?[\d.]+ kB\/phone, bare ws [\d.]+ kB\/phone/);
    expect(run.output).toMatch(/back after a graceful restart [\d.]+ s/);
    // The stack gives the restarted hub the same ticket keys: the phones resume their TLS sessions.
    expect(run.output).toMatch(/TLS sessions resumed: [1-9]\d* of [1-9]\d*\)/);
    expect(run.output).toMatch(/after a crash behind an ingress [\d.]+ s/);
    expect(run.output).toMatch(/phones of the other replica disconnected: 0$/m);
  }, 400_000);

  it('when the throughput benchmark runs, then the phones take the traffic, the idle phones get their SMS and no SMS goes to two phones', async () => {
    const run = await smoke('fleet/throughput.js');
    expectSucceeded(run);
    expect(run.output).toMatch(/throughput: 40 phones, 20\/s offered for 6 s: handed [1-9]\d*\/s/);
    expect(run.output).toMatch(/accept->phone p50 \d+ ms p99 \d+ ms/);
    expect(run.output).toMatch(/report->webhook p50 \d+ ms/);
    expect(run.output).toMatch(/sent twice: 0$/m);
    // What the path cost, per SMS: CPU by process, and the account of statements, calls and messages.
    expect(run.output).toMatch(
      /platform CPU per SMS: [\d.]+ ms \(without the webhook service [\d.]+ ms, and without its Postgres connections [\d.]+ ms\)/,
    );
    // Postgres's CPU counted for the services whose connections it served: the message service's is more than nothing.
    expect(run.output).toMatch(/^Postgres's CPU per SMS by whom it worked for \(ms\): .*message (\d*[1-9][\d.]*|0\.\d*[1-9]\d*)/m);
    expect(run.output).toMatch(/"statements_per_sms": [\d.]+/);
    expect(run.output).toMatch(/"message ClaimMany": [\d.]+/);
    expect(run.output).toMatch(/"msgs_in": [\d.]+/);
    // The hub reads and writes its phones' frames: more than nothing an SMS.
    expect(run.output).toMatch(
      /^read and write system calls per SMS: gateway [\d.]+, .*device-hub (\d*[1-9][\d.]*|0\.\d*[1-9]\d*), .*; wakeups per SMS: .*postgres [\d.]+/m,
    );
    // Each service's heap after its major collections, from the preload every service is started with.
    expect(run.output).toMatch(
      /heap after major collections, lowest of the first minute -> of the last \(collections\): gateway .*, device-hub .* \(\d+\), .*otp .* \(\d+\)$/m,
    );
    expect(run.output).toMatch(/"first_minute_floor": (\d+|null)/);
    expect(run.output).toMatch(
      /^heap committed, outside the heap \(Buffers, native objects\) and RSS at the first -> last major collection: ([a-z-]+ \d+ -> \d+, \d+ -> \d+, \d+ -> \d+ MB(, |$))*$/m,
    );
  }, 300_000);

  it('when the claim ceiling is measured, then a backlog is handed to unpaced phones, each message to one phone', async () => {
    const run = await smoke('fleet/throughput.js', { BENCH_MODE: 'ceiling' });
    expectSucceeded(run);
    expect(run.output).toMatch(
      /ceiling: 400 queued messages handed to 40 unpaced phones at [1-9]\d*\/s; 400 ended \(delivered or failed\) at [1-9]\d*\/s; sent twice: 0/,
    );
  }, 300_000);
});
