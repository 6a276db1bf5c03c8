import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { PassThrough } from 'node:stream';
import QRCode from 'qrcode';
import { AppError } from '@smsgw/platform';
import { copyable, csrfField, notice, when } from '../../views/layout';
import { field, page, type AppDeps, type DashContext, type DashRouter } from '../context';
import { html, trusted, type SafeHtml } from '../../views/html';

/** Where phones download the app (android-agent/android, built by `make apk`). */
export const APK_PATH = '/downloads/smsgw-agent.apk';

export interface ApkInfo {
  size: number;
  sha256: string;
}

let apkCache: { key: string; info: ApkInfo } | undefined;

/** The APK's size and digest, read again only when the file changes; undefined when it is not built. */
export function apkInfo(file: string | undefined): ApkInfo | undefined {
  if (!file) return undefined;
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    return undefined;
  }
  const key = `${file}:${stat.size}:${stat.mtimeMs}`;
  if (apkCache?.key !== key) apkCache = { key, info: { size: stat.size, sha256: createHash('sha256').update(fs.readFileSync(file)).digest('hex') } };
  return apkCache.info;
}

/** How to put the app on a phone: the download (a link and a QR code for the phone's camera) and the steps. */
export async function installSection(apk: ApkInfo | undefined, downloadUrl: string): Promise<SafeHtml> {
  if (!apk) {
    return html`<section class="card" aria-labelledby="install-title"><h2 id="install-title">The phone app</h2>
<p>This server has no APK of the app to offer: build it with <code>make apk</code> (android-agent/android/README.md) and set <code>AGENT_APK_FILE</code>, or use the image, which holds it.</p></section>`;
  }
  const svg = await QRCode.toString(downloadUrl, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  return html`<section class="card" aria-labelledby="install-title"><h2 id="install-title">Install the app on a phone</h2>
<figure class="apk-qr" data-qr-payload="${downloadUrl}">${trusted(svg)}<figcaption>Scan with the phone's camera to download the app</figcaption></figure>
<ol>
  <li>On the Android phone (Android 6 or newer), download <a href="${APK_PATH}" download>the SMS gateway app</a> (${Math.round(apk.size / 1024)} KB, SHA-256 <code class="small">${apk.sha256}</code>), or scan this code with its camera.</li>
  <li>Open the downloaded file. Android asks to allow your browser to install unknown apps: allow it. If Play Protect warns about an unknown app, choose <em>More details</em>, then <em>Install anyway</em>: the app comes from this server, not from the Play Store.</li>
  <li>Open <strong>SMS gateway</strong>, grant <em>Send SMS</em> and notifications, and tap <em>Exempt from battery optimisation</em>.</li>
  <li>Add the phone below, then tap <em>Scan the QR code</em> in the app and point it at the code this page shows.</li>
</ol></section>`;
}

/** Public: a phone downloads the app before anyone signs in on it. */
export function downloadRoutes(router: DashRouter, deps: AppDeps): void {
  router.get(APK_PATH, (ctx) => {
    const info = apkInfo(deps.apkFile);
    if (!info || !deps.apkFile) throw new AppError('NOT_FOUND');
    ctx.type = 'application/vnd.android.package-archive';
    ctx.set('Content-Disposition', 'attachment; filename="smsgw-agent.apk"');
    ctx.set('Cache-Control', 'no-cache');
    ctx.set('ETag', `"${info.sha256}"`);
    ctx.length = info.size;
    ctx.body = fs.createReadStream(deps.apkFile);
  });
}

const startOfTodayUtc = () => new Date(new Date().toISOString().slice(0, 10) + 'T00:00:00.000Z').toISOString();

export function phoneRoutes(router: DashRouter, deps: AppDeps): void {
  const { up, deviceEvents } = deps;

  async function phonesPage(ctx: DashContext, added?: { deviceId: string; name: string; password: string; pairingUrl: string; expiresAt: string }, error?: string) {
    const s = ctx.state.session!;
    const { devices } = await up.devices.listDevices({ clientId: s.clientId, onlineOnly: false });
    const ids = devices.map((d) => d.deviceId);
    const [queued, today] = await Promise.all([
      ids.length ? up.messages.queueDepths({ deviceIds: ids }).then((r) => r.depths) : Promise.resolve<Record<string, number>>({}),
      Promise.all(devices.map((d) => up.messages.getStats({ clientId: s.clientId, mode: 'MODE_LIVE', fromDate: startOfTodayUtc(), toDate: '', deviceId: d.deviceId }))),
    ]);
    const csrf = csrfField({ csrf: s.csrf });
    let pairing = html``;
    if (added) {
      // The QR code is the pairing URL itself: `npm run agent -- --pairing-url <it>` accepts it as is.
      const svg = await QRCode.toString(added.pairingUrl, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
      pairing = html`<div class="card reveal" role="status">
  <p><strong>"${added.name}" is added.</strong> Pair the phone's agent with the QR code (valid until ${when(added.expiresAt)}, once) or with the device password. Both are shown only now.</p>
  <figure class="qr" data-qr-payload="${added.pairingUrl}">${trusted(svg)}<figcaption>Pairing QR code</figcaption></figure>
  ${copyable('Pairing URL', added.pairingUrl, 'pairing-url')}
  ${copyable('Device password', added.password, 'device-password')}
  <p>In the phone app: tap <em>Scan the QR code</em>. Or type the hub <code>${new URL(added.pairingUrl).host}</code>, the client id <code>${s.clientId}</code> and the device password.</p>
  <p class="muted">A simulated phone on a computer: <code>npm run agent -- --pairing-url '…'</code>.</p>
</div>`;
    }
    const install = await installSection(apkInfo(deps.apkFile), `${ctx.origin}${APK_PATH}`);
    page(
      ctx,
      'Phones',
      'phones',
      html`${notice('error', error)}${pairing}${install}
<form method="post" action="/phones" class="card inline">${csrf}
  <label for="phone-name">Name</label><input id="phone-name" name="name" required maxlength="100" placeholder="Pixel 8, shop">
  <button type="submit">Add a phone</button>
</form>
<div class="table-wrap"><table id="phones" data-live="/phones/events">
<caption>Your phones (state updates live)</caption>
<thead><tr><th scope="col">Name</th><th scope="col">State</th><th scope="col">Last seen</th><th scope="col">Queued</th><th scope="col">Sent today</th><th scope="col">Actions</th></tr></thead>
<tbody>${devices.map(
        (d, i) => html`<tr data-device="${d.deviceId}">
  <td><form method="post" action="/phones/${d.deviceId}/rename" class="rename">${csrf}<label class="sr" for="name-${d.deviceId}">Name of ${d.deviceId}</label><input id="name-${d.deviceId}" name="name" value="${d.name}" maxlength="100"><button type="submit" class="link">Rename</button></form><code class="small">${d.deviceId}</code></td>
  <td><span class="state ${d.status}" data-state>${d.status}</span></td>
  <td data-seen>${when(d.lastSeenAt)}</td>
  <td>${queued[d.deviceId] ?? 0}</td>
  <td>${today[i]!.totalSent}</td>
  <td><form method="post" action="/phones/${d.deviceId}/remove" data-confirm="Remove this phone? It will be disconnected and will have to be added again.">${csrf}<button type="submit" class="danger">Remove</button></form></td>
</tr>`,
      )}</tbody></table></div>`,
    );
  }

  router.get('/phones', (ctx) => phonesPage(ctx));
  router.post('/phones', async (ctx) => {
    const name = field(ctx, 'name').slice(0, 100);
    if (!name) return phonesPage(ctx, undefined, 'Give the phone a name.');
    const d = await up.devices.createDevice({ clientId: ctx.state.session!.clientId, name });
    await phonesPage(ctx, { deviceId: d.deviceId, name, password: d.devicePassword, pairingUrl: d.pairingUrl, expiresAt: d.pairingExpiresAt });
  });
  router.post('/phones/:deviceId/rename', async (ctx) => {
    const name = field(ctx, 'name');
    if (!name) {
      ctx.status = 400;
      return phonesPage(ctx, undefined, 'A phone needs a name.');
    }
    await up.devices.renameDevice({ clientId: ctx.state.session!.clientId, deviceId: ctx.params.deviceId!, name });
    ctx.redirect('/phones');
  });
  router.post('/phones/:deviceId/remove', async (ctx) => {
    await up.devices.removeDevice({ clientId: ctx.state.session!.clientId, deviceId: ctx.params.deviceId! });
    ctx.redirect('/phones');
  });

  // Server-sent events: each phone of the client that goes online or offline, as it happens.
  router.get('/phones/events', (ctx) => {
    const stream = new PassThrough();
    ctx.req.socket.setTimeout(0);
    ctx.type = 'text/event-stream';
    ctx.set('Cache-Control', 'no-store');
    ctx.set('X-Accel-Buffering', 'no');
    ctx.body = stream;
    stream.write('retry: 2000\n\n');
    const stop = deviceEvents.listen(ctx.state.session!.clientId, (change) => stream.write(`event: device\ndata: ${JSON.stringify(change)}\n\n`));
    const ping = setInterval(() => stream.write(': ping\n\n'), 25_000);
    const end = () => {
      clearInterval(ping);
      stop();
    };
    ctx.req.on('close', end);
    stream.on('error', end);
  });
}
