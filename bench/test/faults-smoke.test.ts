import { expectSucceeded, smoke } from './support/smoke';

describe('the faults benchmark in smoke mode', () => {
  it('when a service is killed, Redis restarted and a phone killed under load, then nothing is lost or doubled and every event arrives with one id', async () => {
    const run = await smoke('faults/run.js');
    expectSucceeded(run);
    expect(run.output).toMatch(/\| SIGKILL message +\|/);
    expect(run.output).toMatch(/\| restart redis +\|/);
    expect(run.output).toMatch(/\| SIGKILL phone-0 +\|/);
    expect(run.output).toContain('lost: 0; sent twice: 0; events missing: 0; events with two ids: 0');
  }, 900_000);
});
