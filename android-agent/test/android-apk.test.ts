import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

/**
 * The native app's APK as `make apk` builds it (android-agent/android/build.sh), checked with the
 * tools a release would use: its signatures, what Android reads from its manifest, and what its
 * dex holds. Built twice, into two places, to check that the same sources and key give the same
 * bytes. Nothing here runs Android: android-agent/android/README.md says what only a phone shows.
 */
const run = promisify(execFile);
const BUILD = path.join(__dirname, '..', 'android', 'build.sh');

async function build(out?: string): Promise<string> {
  const { stdout } = await run(BUILD, [], {
    env: { ...process.env, ...(out ? { SMSGW_APK_OUT: out } : {}) },
    maxBuffer: 16 << 20,
  });
  const lines = stdout.trim().split('\n');
  return lines[lines.length - 1]!;
}

const sha256 = (file: string) => createHash('sha256').update(fs.readFileSync(file)).digest('hex');

describe('the Android app, built by make apk', () => {
  let apk: string;
  let again: string;
  let work: string;

  beforeAll(async () => {
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'smsgw-apk-'));
    apk = await build();
    again = await build(path.join(work, 'smsgw-agent.apk'));
  }, 400_000);

  afterAll(() => {
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('when it is built, then the last line printed is the path of the signed APK', () => {
    expect(apk).toBe(path.join(__dirname, '..', 'android', 'build', 'smsgw-agent.apk'));
    expect(fs.statSync(apk).size).toBeGreaterThan(100_000);
  });

  it('when it is built twice from the same sources and key, then both APKs are the same bytes', () => {
    expect(sha256(again)).toBe(sha256(apk));
  });

  it('when apksigner verifies it, then its v1, v2 and v3 signatures hold', async () => {
    const { stdout } = await run('apksigner', ['verify', '--verbose', '--print-certs', apk]);
    expect(stdout).toContain('Verified using v1 scheme (JAR signing): true');
    expect(stdout).toContain('Verified using v2 scheme (APK Signature Scheme v2): true');
    expect(stdout).toContain('Verified using v3 scheme (APK Signature Scheme v3): true');
    expect(stdout).toMatch(/Signer #1 certificate DN: CN=/);
  });

  it('when Android reads its manifest, then it is the gateway app for API 23 to 34 with the permissions it needs', async () => {
    const { stdout } = await run('aapt', ['dump', 'badging', apk]);
    expect(stdout).toMatch(/^package: name='org\.smsgw\.agent' versionCode='1' versionName='0\.1\.0'/m);
    expect(stdout).toContain("sdkVersion:'23'");
    expect(stdout).toContain("targetSdkVersion:'34'");
    const permissions = [...stdout.matchAll(/^uses-permission: name='([^']+)'/gm)].map((m) => m[1]);
    expect(permissions.sort()).toEqual(
      [
        'android.permission.ACCESS_NETWORK_STATE',
        'android.permission.CAMERA',
        'android.permission.FOREGROUND_SERVICE',
        'android.permission.FOREGROUND_SERVICE_DATA_SYNC',
        'android.permission.INTERNET',
        'android.permission.POST_NOTIFICATIONS',
        'android.permission.READ_PHONE_NUMBERS',
        'android.permission.READ_PHONE_STATE',
        'android.permission.RECEIVE_BOOT_COMPLETED',
        'android.permission.RECEIVE_SMS',
        'android.permission.REQUEST_IGNORE_BATTERY_OPTIMIZATIONS',
        'android.permission.SEND_SMS',
        'android.permission.WAKE_LOCK',
      ].sort(),
    );
    expect(stdout).toContain("launchable-activity: name='org.smsgw.agent.app.MainActivity'");
  });

  it('when its manifest is read as Android 14 does, then every component says whether it is exported and the service has its type', async () => {
    const { stdout } = await run('aapt', ['dump', 'xmltree', apk, 'AndroidManifest.xml']);
    // One block per component: its element line, then its attributes, up to the next element.
    const components = stdout.split(/\n(?=\s+E: )/).filter((block) => /E: (activity|service|receiver) /.test(block));
    expect(components).toHaveLength(7);
    // The passphrase screen (protocol 8) is the app's own: no other app may open it.
    expect(components.find((block) => block.includes('.app.PassphraseActivity'))).toMatch(
      /A: android:exported\(0x[0-9a-f]+\)=\(type 0x12\)0x0$/,
    );
    for (const block of components) expect(block).toMatch(/A: android:exported\(0x[0-9a-f]+\)=\(type 0x12\)0x(0|ffffffff)/);
    const service = components.find((block) => block.includes('E: service'))!;
    // dataSync is 0x1 of foregroundServiceType.
    expect(service).toMatch(/A: android:foregroundServiceType\(0x[0-9a-f]+\)=\(type 0x11\)0x1\b/);
    // Received SMS (protocol 3): only the telephony stack (BROADCAST_SMS) may send it SMS_RECEIVED.
    const smsReceiver = components.find((block) => block.includes('SmsReceiver'))!;
    expect(smsReceiver).toContain('android.permission.BROADCAST_SMS');
    const afterSmsReceiver = stdout.slice(stdout.indexOf('.app.SmsReceiver'));
    expect(afterSmsReceiver.slice(0, afterSmsReceiver.indexOf('E: receiver'))).toContain('android.provider.Telephony.SMS_RECEIVED');
  });

  it("when its manifest is read, then nothing of the app goes to a backup or a device transfer: allowBackup off, Android 6-11's rules and Android 12's dataExtractionRules, which exclude every domain", async () => {
    const { stdout } = await run('aapt', ['dump', 'xmltree', apk, 'AndroidManifest.xml']);
    const application = stdout.slice(stdout.indexOf('E: application'), stdout.indexOf('E: activity'));
    expect(application).toMatch(/A: android:allowBackup\(0x01010280\)=\(type 0x12\)0x0\n/);
    expect(application).toMatch(/A: android:fullBackupContent\(0x010104eb\)=@0x7f/);
    // API 31's attribute, by its id: the placeholder the API 29 aapt knows is gone.
    expect(application).toMatch(/A: android:dataExtractionRules\(0x0101063e\)=@0x7f/);
    expect(application).not.toContain('networkSecurityConfig');
    const rules = await run('aapt', ['dump', 'xmltree', apk, 'res/xml/data_extraction_rules.xml']);
    for (const part of ['cloud-backup', 'device-transfer']) {
      const block = rules.stdout.slice(rules.stdout.indexOf(`E: ${part}`));
      for (const domain of ['root', 'file', 'database', 'sharedpref']) expect(block).toContain(`A: domain="${domain}"`);
    }
  });

  it("when its dex is listed, then it holds the app's classes, the core's and ZXing's QR reader", async () => {
    const { stdout } = await run('dexdump', [apk], { maxBuffer: 256 << 20 });
    const classes = new Set([...stdout.matchAll(/Class descriptor\s+: '([^']+)'/g)].map((m) => m[1]));
    for (const name of [
      'Lorg/smsgw/agent/app/AgentService;',
      'Lorg/smsgw/agent/app/MainActivity;',
      'Lorg/smsgw/agent/app/ScanActivity;',
      'Lorg/smsgw/agent/app/PassphraseActivity;',
      'Lorg/smsgw/agent/core/PassphraseStore;',
      'Lorg/smsgw/agent/core/EncryptedTexts;',
      'Lorg/smsgw/agent/app/SmsResultReceiver;',
      'Lorg/smsgw/agent/app/BootReceiver;',
      'Lorg/smsgw/agent/app/SmsReceiver;',
      'Lorg/smsgw/agent/core/Inbox;',
      'Lorg/smsgw/agent/core/SmsParts;',
      'Lorg/smsgw/agent/core/HubClient;',
      'Lorg/smsgw/agent/core/Outbox;',
      'Lorg/smsgw/agent/core/WebSocketTransport;',
      'Lorg/smsgw/agent/core/CredentialsSeal;',
      'Lorg/smsgw/agent/app/KeystoreKey;',
      'Lcom/google/zxing/qrcode/QRCodeReader;',
    ]) {
      expect(classes).toContain(name);
    }
    // Only the QR reader of ZXing is packed.
    expect([...classes].some((c) => c!.startsWith('Lcom/google/zxing/pdf417/'))).toBe(false);
  });
});
