import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

/**
 * A TCP port that nothing listens on right now, for a server the caller starts next. Ports come
 * from below Linux's ephemeral range (32768 and up), where the kernel never puts the local end of
 * an outgoing connection: a port of the ephemeral range could be taken by any connection of any
 * process between this check and the server's bind. Each jest worker (JEST_WORKER_ID, inherited by
 * the processes it starts), or else each process, draws from a slice of its own, so that two stacks
 * started side by side rarely pick the same port, and a file per port handed out (reserveAcrossProcesses)
 * keeps every other process of the machine off it for two minutes. Another program may still take
 * one meanwhile; the servers started on it then fail loudly.
 */
const FIRST = 10_000;
const LAST = 32_000;
const SLICES = 8;
const SLICE = Math.floor((LAST - FIRST) / SLICES);

/** How long a port handed out stays reserved: by then it is bound by whom it was given to, or free again. */
const RESERVED_MS = 120_000;

/**
 * Reserves `port` for this process against every other process of the machine, for RESERVED_MS: a
 * file created exclusively in `dir` (a slice is not enough: a jest run started by a test, as the
 * fuzz benchmark does, numbers its workers from 1 again). False when another process holds it.
 */
export function reserveAcrossProcesses(port: number, dir = path.join(os.tmpdir(), 'smsgw-ports'), now = Date.now()): boolean {
  const file = path.join(dir, String(port));
  fs.mkdirSync(dir, { recursive: true });
  try {
    fs.closeSync(fs.openSync(file, 'wx'));
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const age = now - fs.statSync(file).mtimeMs;
  if (age < RESERVED_MS) return false;
  const at = new Date(now);
  fs.utimesSync(file, at, at);
  return true;
}

/** The ports [first, last] this process draws from: its jest worker's slice, else its pid's. */
export function portSlice(env: NodeJS.ProcessEnv = process.env, pid = process.pid): [number, number] {
  const worker = Number(env.JEST_WORKER_ID);
  const index = (Number.isInteger(worker) && worker > 0 ? worker - 1 : pid) % SLICES;
  return [FIRST + index * SLICE, FIRST + (index + 1) * SLICE - 1];
}

export async function freePort(host = '127.0.0.1'): Promise<number> {
  const [start, last] = portSlice();
  for (let tries = 0; tries < 200; tries++) {
    const port = start + Math.floor(Math.random() * (last - start + 1));
    // Reserved before the check, synchronously: neither a concurrent call of this process nor
    // another process draws it meanwhile, nor for RESERVED_MS after it is handed out.
    if (!reserveAcrossProcesses(port)) continue;
    if (!(await canListen(port, host))) continue;
    return port;
  }
  throw new Error(`no free port found in ${start}-${last} on ${host}`);
}

function canListen(port: number, host: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}
