// The suites' local CA and certificates (.stack/e2e/certs), made once before the workers start:
// two suites starting together on a fresh checkout would otherwise each make a CA of their own in
// the same folder, and one would hold certificates the other's CA did not sign.
const path = require('node:path');
const { ensureCerts, ensureServiceCerts, REPO_ROOT } = require('@smsgw/stack');
const { SERVICE_IDENTITIES } = require('@smsgw/platform');

module.exports = async () => {
  const dir = path.join(REPO_ROOT, '.stack/e2e/certs');
  await ensureServiceCerts(dir, await ensureCerts(dir), SERVICE_IDENTITIES);
};
