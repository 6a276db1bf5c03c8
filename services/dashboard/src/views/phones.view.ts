import QRCode from 'qrcode';
import type { devicehub } from '@smsgw/proto';
import type { AddedPhone, ApkInfo, PhoneRow } from '../use-cases/phones.use-case';
import { html, trusted, type SafeHtml } from './html';
import { copyable, csrfField, notice, when } from './layout';
import { phoneFleetSection } from './phone-fleet.view';
import { accountNotice } from './account.view';
import { roomBadge } from './phone.view';
import { quarantinedNote } from './sim-health.view';

/** Where phones download the app (android-agent/android, built by `make apk`). */
export const APK_PATH = '/downloads/smsgw-agent.apk';

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

/** The pairing card of a phone just added: the QR code is the pairing URL itself (`npm run agent -- --pairing-url <it>` accepts it as is). */
async function pairingCard(added: AddedPhone, clientId: string): Promise<SafeHtml> {
  const svg = await QRCode.toString(added.pairingUrl, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  return html`<div class="card reveal" role="status">
  <p><strong>"${added.name}" ${added.rotated ? 'has a new pairing: its old password and code no longer work' : 'is added'}.</strong> Pair the phone's agent with the QR code (valid until ${when(added.expiresAt)}, once) or with the device password. Both are shown only now.</p>
  <figure class="qr" data-qr-payload="${added.pairingUrl}">${trusted(svg)}<figcaption>Pairing QR code</figcaption></figure>
  ${copyable('Pairing URL', added.pairingUrl, 'pairing-url')}
  ${copyable('Device password', added.password, 'device-password')}
  <p>In the phone app: tap <em>Scan the QR code</em>. Or type the hub <code>${new URL(added.pairingUrl).host}</code>, the client id <code>${clientId}</code> and the device password.</p>
  <p class="muted">A simulated phone on a computer: <code>npm run agent -- --pairing-url '…'</code>.</p>
</div>`;
}

export interface PhonesPage {
  csrf: string;
  clientId: string;
  /** The owner's address while the account is not verified: no phone can be added or paired then. */
  unverifiedAccount?: string;
  phones: PhoneRow[];
  /** The install section (`installSection`). */
  install: SafeHtml;
  added?: AddedPhone;
  error?: string;
  ok?: string;
  /** The settings for all phones, and the form as typed when it was refused. */
  fleet: { now: devicehub.FleetSettings__Output; form: Record<string, string>; error?: string };
}

export async function phonesView(p: PhonesPage): Promise<SafeHtml> {
  const csrf = csrfField({ csrf: p.csrf });
  const pairing = p.added ? await pairingCard(p.added, p.clientId) : html``;
  const add = p.unverifiedAccount
    ? accountNotice(p.csrf, p.unverifiedAccount)
    : html`<form method="post" action="/phones" class="card inline">${csrf}
  <label for="phone-name">Name</label><input id="phone-name" name="name" required maxlength="100" placeholder="Pixel 8, shop">
  <button type="submit">Add a phone</button>
</form>`;
  return html`${notice('ok', p.ok)}${notice('error', p.error)}${pairing}${p.install}
${add}
<div class="table-wrap"><table id="phones" data-live="/phones/events">
<caption>Your phones (state updates live)</caption>
<thead><tr><th scope="col">Name</th><th scope="col">State</th><th scope="col">Last seen</th><th scope="col">Queued</th><th scope="col">Sent today</th><th scope="col">Limits</th><th scope="col">Actions</th></tr></thead>
<tbody>${p.phones.map(
    ({ device: d, queued, sentToday }) => html`<tr data-device="${d.deviceId}">
  <td><form method="post" action="/phones/${d.deviceId}/rename" class="rename">${csrf}<label class="sr" for="name-${d.deviceId}">Name of ${d.deviceId}</label><input id="name-${d.deviceId}" name="name" value="${d.name}" maxlength="100"><button type="submit" class="link">Rename</button></form><code class="small">${d.deviceId}</code></td>
  <td><span class="state ${d.status}" data-state>${d.status}</span>${quarantinedNote(d)}</td>
  <td data-seen>${when(d.lastSeenAt)}</td>
  <td>${queued}</td>
  <td>${sentToday}</td>
  <td>${roomBadge(d)} <a href="/phones/${d.deviceId}" data-limits>Limits and hours</a></td>
  <td><form method="post" action="/phones/${d.deviceId}/rotate" data-confirm="Give this phone a new pairing? Its device password and pairing code change, and it is disconnected until it pairs with the new ones.">${csrf}<button type="submit">New pairing</button></form>
    <form method="post" action="/phones/${d.deviceId}/revoke" data-confirm="Revoke this phone's credentials? It is disconnected and cannot pair again until you give it a new pairing.">${csrf}<button type="submit" class="danger">Revoke</button></form>
    <form method="post" action="/phones/${d.deviceId}/remove" data-confirm="Remove this phone? It will be disconnected and will have to be added again.">${csrf}<button type="submit" class="danger">Remove</button></form></td>
</tr>`,
  )}</tbody></table></div>
${phoneFleetSection(p.csrf, p.fleet.now, p.fleet.form, p.fleet.error)}`;
}
