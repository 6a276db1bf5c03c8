/**
 * `run`'s answer shared by every caller for `ms` after it was asked (the promise itself, so callers
 * during a check wait for the same one): a flood of readiness probes, or the gauges of one
 * metrics scrape, cost one check per window.
 */
export function reusedFor<T>(ms: number, run: () => Promise<T>): () => Promise<T> {
  let last: { at: number; value: Promise<T> } | undefined;
  return () => {
    if (!last || Date.now() - last.at > ms) last = { at: Date.now(), value: run() };
    return last.value;
  };
}

/** Whether `check` answers true within `ms`; a late, failed or false answer is false (readiness checks). */
export async function answersWithin(ms: number, check: Promise<boolean>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([check.catch(() => false), late]);
  } finally {
    clearTimeout(timer);
  }
}
