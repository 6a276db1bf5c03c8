'use strict';
/** What the benchmarks read of a process or of the machine, from /proc (Linux). */
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');

/** Clock ticks per second (USER_HZ), for cpuTicks. */
function clockTicks() {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
}

/**
 * Resident memory of a process in kB; undefined once it is gone.
 * @param {number} pid
 */
function rssKb(pid) {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * utime + stime of a process, in clock ticks; undefined once it is gone.
 * @param {number} pid
 */
function cpuTicks(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]); // fields 14 and 15 of proc(5)
  } catch {
    return undefined;
  }
}

/**
 * Pids of every process whose command name is `comm` (the shared Postgres, Redis and NATS), kept
 * only when `filter(cmdline)` says so: a Postgres backend's command line names its database.
 * @param {string} comm
 * @param {(cmdline: string) => boolean} [filter]
 */
function pidsOf(comm, filter = () => true) {
  const pids = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim() !== comm) continue;
      if (filter(fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' '))) pids.push(Number(entry));
    } catch {
      /* gone */
    }
  }
  return pids;
}

/**
 * A process and its children (a Postgres postmaster and its backends, WAL writer, checkpointer...).
 * @param {number | undefined} pid
 */
function withChildren(pid) {
  if (!pid) return [];
  const pids = [pid];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) pids.push(Number(entry));
    } catch {
      /* gone */
    }
  }
  return pids;
}

/**
 * What a process asked of the kernel so far, over all its threads; undefined once it is gone.
 * `readsWrites`: read and write system calls (`syscr` + `syscw` of /proc/<pid>/io: read, readv,
 * write, writev, which Node's, NATS's and Redis's sockets use; not recv and send, which Postgres's
 * use). `wakeups`: voluntary context switches, the times a thread slept until something came.
 * @param {number} pid
 */
function kernelCounts(pid) {
  try {
    const io = fs.readFileSync(`/proc/${pid}/io`, 'utf8');
    const count = (/** @type {RegExp} */ re) => Number(re.exec(io)?.[1] ?? 0);
    let wakeups = 0;
    for (const task of fs.readdirSync(`/proc/${pid}/task`)) {
      try {
        const m = /^voluntary_ctxt_switches:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/task/${task}/status`, 'utf8'));
        wakeups += Number(m?.[1] ?? 0);
      } catch {
        /* the thread ended */
      }
    }
    return { readsWrites: count(/^syscr:\s+(\d+)/m) + count(/^syscw:\s+(\d+)/m), wakeups };
  } catch {
    return undefined;
  }
}

/**
 * Busy and total jiffies of the whole machine (every core), from /proc/stat, and of the busy ones
 * those stolen by the host (`steal`: a virtual machine's cores running another guest meanwhile).
 */
function machineTicks() {
  const cpu = (fs.readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
  const idle = (cpu[3] ?? 0) + (cpu[4] ?? 0);
  const total = cpu.slice(0, 8).reduce((a, b) => a + b, 0);
  return { busy: total - idle, total, steal: cpu[7] ?? 0 };
}

module.exports = { clockTicks, cpuTicks, kernelCounts, machineTicks, pidsOf, rssKb, withChildren };
