'use strict';
/** Phase 1: a bare Koa HTTPS hello-world in its own process, the ceiling of one Node HTTPS process. */
const { fork } = require('node:child_process');
const path = require('node:path');
const { request } = require('../lib/http');
const { onCleanup, stopChild, withTimeout } = require('./cleanup');
const { measure } = require('./load');
const { BENCH_DIR } = require('./settings');

/** @typedef {{child: import('node:child_process').ChildProcess, url: string}} HelloWorld */

/**
 * Forks the hello-world (the stack's certificate) and checks its answer, the CA verified.
 * @param {import('./setup').Run} run
 * @returns {Promise<HelloWorld>}
 */
async function startHelloWorld({ stack, caPem }) {
  const child = fork(path.join(BENCH_DIR, 'hello-server.js'), [stack.certs.certFile, stack.certs.keyFile], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  onCleanup('hello-world', () => stopChild(child));
  /** @type {number} */
  const port = await withTimeout(
    new Promise((resolve, reject) => {
      child.once('message', (/** @type {{port: number}} */ m) => resolve(m.port));
      child.once('exit', (code) => reject(new Error(`hello-world exited with ${code}`)));
    }),
    10_000,
    'hello-world start',
  );
  const hello = { child, url: `https://127.0.0.1:${port}` };
  const helloCheck = await request(`${hello.url}/`, caPem);
  if (helloCheck.status !== 200 || helloCheck.body.success !== true)
    throw new Error(`hello-world answered ${helloCheck.status} ${JSON.stringify(helloCheck.body)}`);
  return hello;
}

/**
 * Measures the hello-world, then stops it.
 * @param {import('./setup').Run} run
 * @param {import('./load').Results} results
 * @param {HelloWorld} hello
 */
async function measureHelloWorld(run, results, hello) {
  await measure(run, results, {
    key: 'hello_world',
    label: '1. bare Koa HTTPS hello-world (separate process)',
    url: `${hello.url}/`,
    options: {},
    okStatus: '200',
  });
  await stopChild(hello.child);
}

module.exports = { measureHelloWorld, startHelloWorld };
