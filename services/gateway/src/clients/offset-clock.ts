import fs from 'node:fs';

/**
 * The clock of the keys' daily quotas. Without a file, the system's. With `CLOCK_OFFSET_FILE`
 * (tests only: the end-to-end tests move a key's day forward), the system's plus the milliseconds
 * the file holds, read again at every call so that a test's change takes effect at once; a file
 * missing, empty or not a number counts as 0.
 */
export function quotaClock(offsetFile: string | undefined): () => number {
  if (!offsetFile) return Date.now;
  return () => Date.now() + readOffset(offsetFile);
}

function readOffset(file: string): number {
  try {
    return Number(fs.readFileSync(file, 'utf8').trim()) || 0;
  } catch {
    return 0;
  }
}
