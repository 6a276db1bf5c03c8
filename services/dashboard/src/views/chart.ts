import { escapeHtml } from './html';

export interface DayBar {
  date: string;
  sent: number;
  delivered: number;
  failed: number;
}

/** One series of bars: its field in each day, its CSS class (`bar <key>`, `swatch <key>`) and its legend. */
export interface Series<K extends string> {
  key: K;
  label: string;
}

/**
 * The by-day chart of the SMS: for each day three bars (sent, delivered, failed).
 */
export function dayChart(days: DayBar[]): string {
  return barChart(
    days,
    [
      { key: 'sent', label: 'Sent' },
      { key: 'delivered', label: 'Delivered' },
      { key: 'failed', label: 'Failed' },
    ],
    (total, n) => `SMS per day: ${total} sent over ${n} days`,
  );
}

/**
 * A by-day chart as an SVG drawn on the server: for each day one bar per series, a scale, and a
 * title per bar for screen readers and hover. No script: it is there before anything runs.
 * `title` gets the first series' total and the number of days.
 */
export function barChart<K extends string>(
  days: ({ date: string } & Record<K, number>)[],
  series: Series<K>[],
  title: (total: number, days: number) => string,
): string {
  const width = 720;
  const height = 240;
  const left = 40;
  const bottom = 28;
  const top = 10;
  const max = Math.max(1, ...days.flatMap((d) => series.map((s) => d[s.key])));
  const plotH = height - top - bottom;
  const slot = (width - left - 8) / Math.max(1, days.length);
  const bar = Math.max(2, Math.min(14, (slot - 4) / series.length));
  const y = (v: number) => top + plotH - (v / max) * plotH;
  const ticks = [...new Set([0, Math.round(max / 2), max])];
  const parts: string[] = [];
  for (const t of ticks) {
    parts.push(`<line x1="${left}" x2="${width}" y1="${y(t)}" y2="${y(t)}" class="grid"/>`);
    parts.push(`<text x="${left - 6}" y="${y(t) + 4}" text-anchor="end" class="axis">${t}</text>`);
  }
  days.forEach((d, i) => {
    const x0 = left + i * slot + (slot - bar * series.length) / 2;
    series.forEach(({ key }, j) => {
      const v = d[key];
      parts.push(
        `<rect x="${x0 + j * bar}" y="${y(v)}" width="${bar - 1}" height="${top + plotH - y(v)}" class="bar ${key}"><title>${escapeHtml(d.date)}: ${v} ${key}</title></rect>`,
      );
    });
    if (days.length <= 14 || i % Math.ceil(days.length / 10) === 0) {
      parts.push(
        `<text x="${left + i * slot + slot / 2}" y="${height - 8}" text-anchor="middle" class="axis">${escapeHtml(d.date.slice(5))}</text>`,
      );
    }
  });
  const total = days.reduce((a, d) => a + d[series[0]!.key], 0);
  const legend = series.map((s) => `<li><span class="swatch ${s.key}"></span>${escapeHtml(s.label)}</li>`).join('');
  return `<svg viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="chart-title" class="chart" preserveAspectRatio="xMidYMid meet">
<title id="chart-title">${escapeHtml(title(total, days.length))}</title>
${parts.join('\n')}
</svg>
<ul class="legend">${legend}</ul>`;
}

/** One point of a line chart: its label (a time) and its value, or null for a gap. */
export interface LinePoint {
  label: string;
  value: number | null;
}

/**
 * A line over time as an SVG drawn on the server (a phone's battery over its day): values from 0
 * to `max`, a title per point for screen readers and hover, about 8 labels on the axis.
 */
export function lineChart(points: LinePoint[], max: number, title: string, unit: string): string {
  const width = 720;
  const height = 200;
  const left = 40;
  const bottom = 28;
  const top = 10;
  const plotH = height - top - bottom;
  const step = (width - left - 8) / Math.max(1, points.length - 1);
  const x = (i: number) => left + i * step;
  const y = (v: number) => top + plotH - (v / max) * plotH;
  const parts: string[] = [];
  for (const t of [0, max / 2, max]) {
    parts.push(`<line x1="${left}" x2="${width}" y1="${y(t)}" y2="${y(t)}" class="grid"/>`);
    parts.push(`<text x="${left - 6}" y="${y(t) + 4}" text-anchor="end" class="axis">${t}${escapeHtml(unit)}</text>`);
  }
  const path = points
    .map((p, i) => (p.value === null ? undefined : `${x(i).toFixed(1)},${y(p.value).toFixed(1)}`))
    .filter((p): p is string => p !== undefined)
    .join(' ');
  parts.push(`<polyline points="${path}" class="line"/>`);
  points.forEach((p, i) => {
    if (p.value !== null) {
      parts.push(
        `<circle cx="${x(i).toFixed(1)}" cy="${y(p.value).toFixed(1)}" r="2.5" class="point"><title>${escapeHtml(p.label)}: ${p.value}${escapeHtml(unit)}</title></circle>`,
      );
    }
    if (points.length <= 8 || i % Math.ceil(points.length / 8) === 0) {
      parts.push(`<text x="${x(i).toFixed(1)}" y="${height - 8}" text-anchor="middle" class="axis">${escapeHtml(p.label)}</text>`);
    }
  });
  return `<svg viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeHtml(title)}" class="chart" preserveAspectRatio="xMidYMid meet">
<title>${escapeHtml(title)}</title>
${parts.join('\n')}
</svg>`;
}
