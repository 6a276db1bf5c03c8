import fs from 'node:fs';
import { PassThrough } from 'node:stream';
import { AppError } from '@smsgw/platform';
import {
  addPhone,
  apkInfo,
  listPhones,
  removePhone,
  renamePhone,
  revokePhone,
  rotatePhone,
  type AddedPhone,
} from '../../use-cases/phones.use-case';
import {
  getPhone,
  hubErrors,
  LIMIT_FIELDS,
  limitsForm,
  parseLimitsForm,
  setPhoneLimits,
  type LimitErrors,
  type LimitsForm,
} from '../../use-cases/phone-limits.use-case';
import { phoneView } from '../../views/phone.view';
import { APK_PATH, installSection, phonesView } from '../../views/phones.view';
import { field, page, type AppDeps, type DashContext, type DashRouter } from '../context';

let zones: string[] | undefined;
/** The IANA time zones this runtime knows, for the time zone field's suggestions. */
const timeZones = () => (zones ??= Intl.supportedValuesOf('timeZone'));

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

export function phoneRoutes(router: DashRouter, deps: AppDeps): void {
  const { up, deviceEvents } = deps;

  async function phonesPage(ctx: DashContext, added?: AddedPhone, error?: string, ok?: string) {
    const s = ctx.state.session!;
    const phones = await listPhones(up, s.clientId);
    const install = await installSection(apkInfo(deps.apkFile), `${ctx.origin}${APK_PATH}`);
    page(ctx, 'Phones', 'phones', await phonesView({ csrf: s.csrf, clientId: s.clientId, phones, install, added, error, ok }));
  }

  router.get('/phones', (ctx) => phonesPage(ctx));
  router.post('/phones', async (ctx) => {
    const name = field(ctx, 'name').slice(0, 100);
    if (!name) return phonesPage(ctx, undefined, 'Give the phone a name.');
    await phonesPage(ctx, await addPhone(up, ctx.state.session!.clientId, name));
  });
  /** A phone's page: its state, the use of its limits and the form of its limits (another client's phone: 404). */
  async function phonePage(ctx: DashContext, typed?: { form: LimitsForm; errors: LimitErrors }) {
    const s = ctx.state.session!;
    const device = await getPhone(up, s.clientId, ctx.params.deviceId);
    const { depths } = await up.messages.queueDepths({ deviceIds: [device.deviceId] });
    const ok = ctx.query.saved === '1' && !typed ? 'The limits are saved: the phone follows them from its next SMS.' : undefined;
    page(
      ctx,
      device.name || device.deviceId,
      'phones',
      phoneView({
        csrf: s.csrf,
        device,
        queued: depths[device.deviceId] ?? 0,
        form: typed?.form ?? limitsForm(device.limits),
        errors: typed?.errors,
        ok,
        zones: timeZones(),
      }),
    );
  }

  router.post('/phones/:deviceId/limits', async (ctx) => {
    const clientId = ctx.state.session!.clientId;
    const deviceId = ctx.params.deviceId!;
    // Another client's phone is refused (404) before anything is checked or stored.
    await getPhone(up, clientId, deviceId);
    const form = Object.fromEntries(LIMIT_FIELDS.map((name) => [name, field(ctx, name).slice(0, 100)])) as LimitsForm;
    const parsed = parseLimitsForm(form);
    if (!parsed.ok) {
      ctx.status = 400;
      return phonePage(ctx, { form, errors: parsed.errors });
    }
    try {
      await setPhoneLimits(up, clientId, deviceId, parsed.value);
    } catch (err) {
      const errors = hubErrors(err);
      if (!errors) throw err;
      ctx.status = 400;
      return phonePage(ctx, { form, errors });
    }
    ctx.redirect(`/phones/${encodeURIComponent(deviceId)}?saved=1`);
  });
  router.post('/phones/:deviceId/rename', async (ctx) => {
    const name = field(ctx, 'name');
    if (!name) {
      ctx.status = 400;
      return phonesPage(ctx, undefined, 'A phone needs a name.');
    }
    await renamePhone(up, ctx.state.session!.clientId, ctx.params.deviceId!, name);
    ctx.redirect('/phones');
  });
  router.post('/phones/:deviceId/rotate', async (ctx) => {
    await phonesPage(ctx, await rotatePhone(up, ctx.state.session!.clientId, ctx.params.deviceId!));
  });
  router.post('/phones/:deviceId/revoke', async (ctx) => {
    await revokePhone(up, ctx.state.session!.clientId, ctx.params.deviceId!);
    await phonesPage(
      ctx,
      undefined,
      undefined,
      'The phone is disconnected and its password, pairing code and tokens no longer work. Give it a new pairing to use it again.',
    );
  });
  router.post('/phones/:deviceId/remove', async (ctx) => {
    await removePhone(up, ctx.state.session!.clientId, ctx.params.deviceId!);
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
    const stop = deviceEvents.listen(ctx.state.session!.clientId, (change) =>
      stream.write(`event: device\ndata: ${JSON.stringify(change)}\n\n`),
    );
    const ping = setInterval(() => stream.write(': ping\n\n'), 25_000);
    const end = () => {
      clearInterval(ping);
      stop();
    };
    ctx.req.on('close', end);
    stream.on('error', end);
  });

  // After /phones/events, which this pattern would take.
  router.get('/phones/:deviceId', (ctx) => phonePage(ctx));
}
