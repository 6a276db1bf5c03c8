const UNITS: [number, string][] = [
  [86_400, 'day'],
  [3_600, 'hour'],
  [60, 'minute'],
  [1, 'second'],
];

/** A number of seconds in words: 5400 is "1 hour 30 minutes", 604800 "7 days". */
export function humanDuration(seconds: number): string {
  if (!(seconds > 0)) return '0 seconds';
  const parts: string[] = [];
  let left = Math.floor(seconds);
  for (const [size, unit] of UNITS) {
    const n = Math.floor(left / size);
    if (n > 0) parts.push(`${n} ${unit}${n === 1 ? '' : 's'}`);
    left -= n * size;
  }
  return parts.join(' ');
}
