import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const CHART = path.resolve(__dirname, '..');
const REPO = path.resolve(CHART, '../..');

/** promtool, built when missing by scripts/ensure-promtool.sh (pinned in scripts/promtool/go.mod). */
const promtool = execFileSync(path.join(REPO, 'scripts/ensure-promtool.sh'), {
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'inherit'],
}).trim();

function run(args: string[], cwd: string): { code: number; out: string } {
  try {
    return { code: 0, out: execFileSync(promtool, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }) };
  } catch (err) {
    const e = err as { status: number; stdout: string; stderr: string };
    return { code: e.status, out: `${e.stdout}${e.stderr}` };
  }
}

describe('alert rules and dashboards shipped with the chart', () => {
  it('when promtool checks the rules, then they are valid and every alert has a summary, a description and a severity', () => {
    const result = run(['check', 'rules', 'alerts/sms-gateway.rules.yaml'], CHART);
    expect(result).toMatchObject({ code: 0 });
    expect(result.out).toMatch(/SUCCESS: \d+ rules found/);
    const text = fs.readFileSync(path.join(CHART, 'alerts/sms-gateway.rules.yaml'), 'utf8');
    const alerts = text.split(/\n\s+- alert: /).slice(1);
    expect(alerts.length).toBeGreaterThanOrEqual(7);
    for (const a of alerts) {
      expect(a).toMatch(/severity: (page|warn)/);
      expect(a).toMatch(/summary:/);
      expect(a).toMatch(/description:/);
    }
  });

  it("when promtool runs the alerts' unit tests, then each fires when it should and not before", () => {
    const result = run(['test', 'rules', 'sms-gateway.tests.yaml'], path.join(CHART, 'alerts'));
    expect(result.out).toContain('SUCCESS');
    expect(result.code).toBe(0);
  });

  it('when a broken rule is checked, then promtool refuses it (the check can fail)', () => {
    const dir = fs.mkdtempSync(path.join(REPO, '.tools/rules-'));
    try {
      fs.writeFileSync(
        path.join(dir, 'bad.yaml'),
        'groups:\n  - name: x\n    rules:\n      - alert: Bad\n        expr: sum(rate(smsgw_x[5m]) > \n',
      );
      expect(run(['check', 'rules', 'bad.yaml'], dir).code).not.toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('when the dashboards are read, then each is valid Grafana JSON whose panels all have a Prometheus query', () => {
    for (const file of fs.readdirSync(path.join(CHART, 'dashboards'))) {
      const dashboard = JSON.parse(fs.readFileSync(path.join(CHART, 'dashboards', file), 'utf8')) as {
        uid: string;
        title: string;
        panels: { title: string; targets: { expr: string }[] }[];
      };
      expect(dashboard.uid).toBeTruthy();
      expect(dashboard.panels.length).toBeGreaterThan(10);
      for (const p of dashboard.panels) expect([p.title, p.targets.every((t) => t.expr.includes('smsgw_'))]).toEqual([p.title, true]);
    }
  });
});
