'use strict';
/** What the run started, stopped in reverse order on the way out, whatever happens (also on Ctrl-C). */
const { say } = require('./settings');

/** @type {{name: string, fn: () => Promise<unknown>}[]} */
const cleanups = [];
/** @type {Promise<void> | undefined} */
let cleaningUp;

/**
 * Stops `name` with `fn` when the run ends.
 * @param {string} name
 * @param {() => Promise<unknown>} fn
 */
function onCleanup(name, fn) {
  cleanups.push({ name, fn });
}

/** Stops everything registered, last first (once, however often it is called). */
function cleanupAll() {
  cleaningUp ??= (async () => {
    for (let next = cleanups.pop(); next; next = cleanups.pop()) {
      try {
        await withTimeout(next.fn(), 30_000, `stopping ${next.name}`);
      } catch (err) {
        say(`warning: ${next.name}: ${/** @type {Error} */ (err).message}`);
      }
    }
  })();
  return cleaningUp;
}

/**
 * `promise`, or a rejection once `ms` have passed.
 * @template T
 * @param {T | Promise<T>} promise
 * @param {number} ms
 * @param {string} what
 * @returns {Promise<T>}
 */
function withTimeout(promise, ms, what) {
  /** @type {NodeJS.Timeout | undefined} */
  let timer;
  return Promise.race([
    Promise.resolve(promise).finally(() => clearTimeout(timer)),
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} took more than ${ms} ms`)), ms);
    }),
  ]);
}

/** On SIGINT or SIGTERM: stop everything, then exit 130. */
function cleanupOnSignals() {
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      say(`\n${signal}: stopping everything this run started...`);
      void cleanupAll().finally(() => process.exit(130));
    });
  }
}

/**
 * A child process of this run, stopped with SIGTERM (then SIGKILL after 5 s).
 * @param {import('node:child_process').ChildProcess | undefined} child
 * @returns {Promise<void>}
 */
function stopChild(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

module.exports = { cleanupAll, cleanupOnSignals, onCleanup, stopChild, withTimeout };
