import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface KeyAndCert {
  key: string;
  cert: string;
}

export interface TestCertificates {
  /** The local CA that tests trust. */
  caPem: string;
  /** A server certificate for `hosts`, signed by that CA. */
  trusted: KeyAndCert;
  /** A server certificate for the same `hosts`, signed by a CA nobody trusts. */
  untrusted: KeyAndCert;
}

const EC_KEY = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

/** Two throwaway CAs and a server certificate from each, made with openssl for one test run. */
export function testCertificates(hosts: string[]): TestCertificates {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'test-certs-'));
  const file = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'ignore' });
  const san = hosts.map((h) => (net.isIP(h) ? `IP:${h}` : `DNS:${h}`)).join(',');
  fs.writeFileSync(file('server.ext'), `subjectAltName=${san}\nextendedKeyUsage=serverAuth\n`);

  const issue = (ca: string): KeyAndCert => {
    openssl(
      'req',
      '-x509',
      ...EC_KEY,
      '-days',
      '1',
      '-subj',
      `/CN=${ca}`,
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign',
      '-keyout',
      file(`${ca}.key`),
      '-out',
      file(`${ca}.pem`),
    );
    openssl('req', '-new', ...EC_KEY, '-subj', `/CN=${hosts[0]}`, '-keyout', file(`${ca}-server.key`), '-out', file(`${ca}-server.csr`));
    openssl(
      'x509',
      '-req',
      '-in',
      file(`${ca}-server.csr`),
      '-CA',
      file(`${ca}.pem`),
      '-CAkey',
      file(`${ca}.key`),
      '-set_serial',
      '1',
      '-days',
      '1',
      '-extfile',
      file('server.ext'),
      '-out',
      file(`${ca}-server.pem`),
    );
    return { key: fs.readFileSync(file(`${ca}-server.key`), 'utf8'), cert: fs.readFileSync(file(`${ca}-server.pem`), 'utf8') };
  };

  try {
    const trusted = issue('trusted-ca');
    const untrusted = issue('untrusted-ca');
    return { caPem: fs.readFileSync(file('trusted-ca.pem'), 'utf8'), trusted, untrusted };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
