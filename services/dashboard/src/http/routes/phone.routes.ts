import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { PassThrough } from 'node:stream';
import { AppError } from '@smsgw/platform';
import { APK_PATH, installSection, phonesView, type AddedPhone, type ApkInfo } from '../../views/phones.view';
import { field, page, type AppDeps, type DashContext, type DashRouter } from '../context';

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

  async function phonesPage(ctx: DashContext, added?: AddedPhone, error?: string) {
    const s = ctx.state.session!;
    const { devices } = await up.devices.listDevices({ clientId: s.clientId, onlineOnly: false });
    const ids = devices.map((d) => d.deviceId);
    const [queued, today] = await Promise.all([
      ids.length ? up.messages.queueDepths({ deviceIds: ids }).then((r) => r.depths) : Promise.resolve<Record<string, number>>({}),
      Promise.all(devices.map((d) => up.messages.getStats({ clientId: s.clientId, mode: 'MODE_LIVE', fromDate: startOfTodayUtc(), toDate: '', deviceId: d.deviceId }))),
    ]);
    const install = await installSection(apkInfo(deps.apkFile), `${ctx.origin}${APK_PATH}`);
    const phones = devices.map((device, i) => ({ device, queued: queued[device.deviceId] ?? 0, sentToday: today[i]!.totalSent }));
    page(ctx, 'Phones', 'phones', await phonesView({ csrf: s.csrf, clientId: s.clientId, phones, install, added, error }));
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
