import { escapeHtml } from './html';

export interface DayBar {
  date: string;
  sent: number;
  delivered: number;
  failed: number;
}

/**
 * The by-day chart as an SVG drawn on the server: for each day three bars
 * (sent, delivered, failed), a scale, and a title per bar for screen readers
 * and hover. No script: it is there before anything runs.
 */
export function dayChart(days: DayBar[]): string {
  const width = 720;
  const height = 240;
  const left = 40;
  const bottom = 28;
  const top = 10;
  const max = Math.max(1, ...days.flatMap((d) => [d.sent, d.delivered, d.failed]));
  const plotH = height - top - bottom;
  const slot = (width - left - 8) / Math.max(1, days.length);
  const bar = Math.max(2, Math.min(14, (slot - 4) / 3));
  const y = (v: number) => top + plotH - (v / max) * plotH;
  const ticks = [...new Set([0, Math.round(max / 2), max])];
  const parts: string[] = [];
  for (const t of ticks) {
    parts.push(`<line x1="${left}" x2="${width}" y1="${y(t)}" y2="${y(t)}" class="grid"/>`);
    parts.push(`<text x="${left - 6}" y="${y(t) + 4}" text-anchor="end" class="axis">${t}</text>`);
  }
  days.forEach((d, i) => {
    const x0 = left + i * slot + (slot - bar * 3) / 2;
    (['sent', 'delivered', 'failed'] as const).forEach((k, j) => {
      const v = d[k];
      parts.push(
        `<rect x="${x0 + j * bar}" y="${y(v)}" width="${bar - 1}" height="${top + plotH - y(v)}" class="bar ${k}"><title>${escapeHtml(d.date)}: ${v} ${k}</title></rect>`,
      );
    });
    if (days.length <= 14 || i % Math.ceil(days.length / 10) === 0) {
      parts.push(
        `<text x="${left + i * slot + slot / 2}" y="${height - 8}" text-anchor="middle" class="axis">${escapeHtml(d.date.slice(5))}</text>`,
      );
    }
  });
  const total = days.reduce((a, d) => a + d.sent, 0);
  return `<svg viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="chart-title" class="chart" preserveAspectRatio="xMidYMid meet">
<title id="chart-title">SMS per day: ${total} sent over ${days.length} days</title>
${parts.join('\n')}
</svg>
<ul class="legend"><li><span class="swatch sent"></span>Sent</li><li><span class="swatch delivered"></span>Delivered</li><li><span class="swatch failed"></span>Failed</li></ul>`;
}
