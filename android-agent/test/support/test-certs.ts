import { generateKeyPairSync } from 'node:crypto';
import forge from 'node-forge';

export interface TestCertificates {
  /** PEM of the CA the agent is told to trust. */
  caPem: string;
  /** PEM key and certificate of the hub, for 127.0.0.1 and localhost, signed by the CA. */
  keyPem: string;
  certPem: string;
}

/** A throw-away CA and a server certificate signed by it, valid for a day either side of now. */
export function createTestCertificates(): TestCertificates {
  const caKeys = rsaKeyPair();
  const caCert = forge.pki.createCertificate();
  caCert.publicKey = caKeys.publicKey;
  caCert.serialNumber = '01';
  setValidity(caCert);
  const caName = [{ name: 'commonName', value: 'smsgw test CA' }];
  caCert.setSubject(caName);
  caCert.setIssuer(caName);
  caCert.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  caCert.sign(caKeys.privateKey, forge.md.sha256.create());

  const serverKeys = rsaKeyPair();
  const serverCert = forge.pki.createCertificate();
  serverCert.publicKey = serverKeys.publicKey;
  serverCert.serialNumber = '02';
  setValidity(serverCert);
  serverCert.setSubject([{ name: 'commonName', value: '127.0.0.1' }]);
  serverCert.setIssuer(caName);
  serverCert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      altNames: [
        { type: 7, ip: '127.0.0.1' },
        { type: 2, value: 'localhost' },
      ],
    },
    { name: 'subjectKeyIdentifier' },
    { name: 'authorityKeyIdentifier', keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes() },
  ]);
  serverCert.sign(caKeys.privateKey, forge.md.sha256.create());

  return {
    caPem: forge.pki.certificateToPem(caCert),
    keyPem: forge.pki.privateKeyToPem(serverKeys.privateKey),
    certPem: forge.pki.certificateToPem(serverCert),
  };
}

// Node's key generation is native and fast; forge's pure-JS one takes seconds.
function rsaKeyPair(): { publicKey: forge.pki.rsa.PublicKey; privateKey: forge.pki.rsa.PrivateKey } {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });
  return {
    publicKey: forge.pki.publicKeyFromPem(publicKey),
    privateKey: forge.pki.privateKeyFromPem(privateKey),
  };
}

function setValidity(cert: forge.pki.Certificate): void {
  const day = 24 * 60 * 60 * 1000;
  cert.validity.notBefore = new Date(Date.now() - day);
  cert.validity.notAfter = new Date(Date.now() + day);
}
