import { PassThrough } from 'node:stream';
import type { DeviceChange } from '../../live/device-events';
import {
  LIMIT_FIELDS,
  limitsForm,
  phoneDetail,
  savePhoneLimits,
  type LimitErrors,
  type LimitsForm,
  type PhoneDetail,
} from '../../use-cases/phone-limits.use-case';
import {
  addPhone,
  apkDownload,
  phonesList,
  phoneStates,
  removePhone,
  renamePhone,
  revokePhone,
  rotatePhone,
  type AddedPhone,
  type PhonesList,
} from '../../use-cases/phones.use-case';
import { phoneView } from '../../views/phone.view';
import { followAccountSimHealth, HEALTH_FIELDS, releaseSim, saveSimHealth, type HealthForm } from '../../use-cases/sim-health.use-case';
import {
  PHONE_FLEET_FIELDS,
  phoneFleetForm,
  savePhoneFleetSettings,
  type PhoneFleetForm,
} from '../../use-cases/phone-fleet-settings.use-case';
import { APK_PATH, installSection, phonesView } from '../../views/phones.view';
import { AppError } from '@smsgw/platform';
import { NEEDS_VERIFIED_ACCOUNT } from '../../views/account.view';
import { recordAction } from '../../use-cases/audit.use-case';
import { actorOf, explain, field, page, type AppDeps, type DashContext, type DashRouter } from '../context';

/** The notes of a phone's page after a save (`?saved=`). */
const SAVED_NOTES = {
  '1': 'The limits are saved: the phone follows them from its next SMS.',
  health: 'The SIM health thresholds are saved: they count from the next report.',
  released: 'The SIM is released: messages go to it again from now on.',
};

const SETTINGS_SAVED = 'The settings for all phones are saved: the phones that follow them use them from now on.';

let zones: string[] | undefined;
/** The IANA time zones this runtime knows, for the time zone field's suggestions. */
const timeZones = () => (zones ??= Intl.supportedValuesOf('timeZone'));

/** Public: a phone downloads the app before anyone signs in on it. */
export function downloadRoutes(router: DashRouter, deps: AppDeps): void {
  router.get(APK_PATH, (ctx) => {
    const { info, content } = apkDownload(deps.apkFile);
    ctx.type = 'application/vnd.android.package-archive';
    ctx.set('Content-Disposition', 'attachment; filename="smsgw-agent.apk"');
    ctx.set('Cache-Control', 'no-cache');
    ctx.set('ETag', `"${info.sha256}"`);
    ctx.length = info.size;
    ctx.body = content;
  });
}

export function phoneRoutes(router: DashRouter, deps: AppDeps): void {
  const { up, deviceEvents } = deps;
  const clientOf = (ctx: DashContext) => ctx.state.session!.clientId;

  async function phonesPage(
    ctx: DashContext,
    list: PhonesList,
    notes: { added?: AddedPhone; error?: string; ok?: string } = {},
    typed?: { form: PhoneFleetForm; error: string },
  ) {
    const s = ctx.state.session!;
    const install = await installSection(list.apk, `${ctx.origin}${APK_PATH}`);
    const unverifiedAccount = list.accountVerified ? undefined : s.email;
    page(
      ctx,
      'Phones',
      'phones',
      await phonesView({
        csrf: s.csrf,
        clientId: s.clientId,
        phones: list.phones,
        install,
        unverifiedAccount,
        ...notes,
        fleet: { now: list.fleet, form: typed?.form ?? phoneFleetForm(list.fleet), ...(typed ? { error: typed.error } : {}) },
      }),
    );
  }

  /** Adding or pairing a phone refused (an account not verified, the cap of phones): the page with the reason. */
  async function refused(ctx: DashContext, err: unknown): Promise<boolean> {
    if (!(err instanceof AppError) || (err.code !== 'ACCOUNT_NOT_VERIFIED' && err.code !== 'LIMIT_REACHED')) return false;
    ctx.status = err.httpStatus;
    const error = err.code === 'ACCOUNT_NOT_VERIFIED' ? NEEDS_VERIFIED_ACCOUNT : explain(err);
    await phonesPage(ctx, await phonesList(deps, clientOf(ctx)), { error });
    return true;
  }

  router.get('/phones', async (ctx) =>
    phonesPage(ctx, await phonesList(deps, clientOf(ctx)), ctx.query.saved === 'settings' ? { ok: SETTINGS_SAVED } : {}),
  );
  router.post('/phones/settings', async (ctx) => {
    const form = Object.fromEntries(PHONE_FLEET_FIELDS.map((name) => [name, field(ctx, name).slice(0, 20)])) as PhoneFleetForm;
    const error = await savePhoneFleetSettings(up, clientOf(ctx), form);
    if (error) {
      ctx.status = 400;
      return phonesPage(ctx, await phonesList(deps, clientOf(ctx)), {}, { form, error });
    }
    await recordAction(up, actorOf(ctx), 'settings.changed', clientOf(ctx), { setting: 'phone fleet settings' });
    ctx.redirect('/phones?saved=settings');
  });
  router.post('/phones', async (ctx) => {
    const name = field(ctx, 'name').slice(0, 100);
    if (!name) return phonesPage(ctx, await phonesList(deps, clientOf(ctx)), { error: 'Give the phone a name.' });
    try {
      const { added, ...list } = await addPhone(deps, clientOf(ctx), name);
      await recordAction(up, actorOf(ctx), 'phone.added', added.deviceId, { name });
      await phonesPage(ctx, list, { added });
    } catch (err) {
      if (!(await refused(ctx, err))) throw err;
    }
  });
  /** A phone's page: its state, the use of its limits and the form of its limits (another client's phone: 404). */
  function phonePage(
    ctx: DashContext,
    { device, queued, repairs, health: telemetry }: PhoneDetail,
    typed?: { form: LimitsForm; errors: LimitErrors },
    health?: { form: HealthForm; error?: string },
  ) {
    const ok =
      typed || health
        ? undefined
        : ctx.query.log === 'asked'
          ? 'The phone is asked for its log: it shows below once it answers (reload the page).'
          : (SAVED_NOTES as Record<string, string | undefined>)[String(ctx.query.saved ?? '')];
    page(
      ctx,
      device.name || device.deviceId,
      'phones',
      phoneView({
        csrf: ctx.state.session!.csrf,
        device,
        queued,
        ...(repairs ? { repairs } : {}),
        form: typed?.form ?? limitsForm(device.limits),
        errors: typed?.errors,
        ok,
        zones: timeZones(),
        ...(health ? { health } : {}),
        ...(telemetry ? { telemetry } : {}),
      }),
    );
  }

  router.post('/phones/:deviceId/limits', async (ctx) => {
    const deviceId = ctx.params.deviceId!;
    const form = Object.fromEntries(LIMIT_FIELDS.map((name) => [name, field(ctx, name).slice(0, 100)])) as LimitsForm;
    const saved = await savePhoneLimits(up, clientOf(ctx), deviceId, form);
    if (!saved.ok) {
      ctx.status = 400;
      return phonePage(ctx, saved.phone, { form, errors: saved.errors });
    }
    await recordAction(up, actorOf(ctx), 'settings.changed', deviceId, { setting: 'phone limits' });
    ctx.redirect(`/phones/${encodeURIComponent(deviceId)}?saved=1`);
  });
  router.post('/phones/:deviceId/sim-health', async (ctx) => {
    const deviceId = ctx.params.deviceId!;
    if (field(ctx, 'follow_account') === '1') {
      await followAccountSimHealth(up, clientOf(ctx), deviceId);
      return ctx.redirect(`/phones/${encodeURIComponent(deviceId)}?saved=health`);
    }
    const form = Object.fromEntries(HEALTH_FIELDS.map((name) => [name, field(ctx, name).slice(0, 20)])) as HealthForm;
    const error = await saveSimHealth(up, clientOf(ctx), deviceId, form);
    if (error) {
      ctx.status = 400;
      return phonePage(ctx, await phoneDetail(up, clientOf(ctx), deviceId), undefined, { form, error });
    }
    ctx.redirect(`/phones/${encodeURIComponent(deviceId)}?saved=health`);
  });
  router.post('/phones/:deviceId/sims/:slot/release', async (ctx) => {
    const deviceId = ctx.params.deviceId!;
    const slot = Number(ctx.params.slot);
    if (!Number.isInteger(slot) || slot < 1 || slot > 8) throw new AppError('NOT_FOUND');
    await releaseSim(up, clientOf(ctx), deviceId, slot);
    ctx.redirect(`/phones/${encodeURIComponent(deviceId)}?saved=released`);
  });
  router.post('/phones/:deviceId/log', async (ctx) => {
    const deviceId = ctx.params.deviceId!;
    try {
      await up.devices.requestDeviceLog({ clientId: clientOf(ctx), deviceId });
    } catch (err) {
      if (!(err instanceof AppError) || err.code !== 'DEVICE_OFFLINE') throw err;
      ctx.status = 409;
      const detail = await phoneDetail(up, clientOf(ctx), deviceId);
      return page(
        ctx,
        detail.device.name || deviceId,
        'phones',
        phoneView({
          csrf: ctx.state.session!.csrf,
          device: detail.device,
          queued: detail.queued,
          form: limitsForm(detail.device.limits),
          ok: undefined,
          errors: { '': 'The phone is offline: it can send its log once it is connected again.' },
          zones: timeZones(),
          ...(detail.health ? { telemetry: detail.health } : {}),
        }),
      );
    }
    ctx.redirect(`/phones/${encodeURIComponent(deviceId)}?log=asked`);
  });
  router.post('/phones/:deviceId/rename', async (ctx) => {
    const name = field(ctx, 'name');
    if (!name) {
      ctx.status = 400;
      return phonesPage(ctx, await phonesList(deps, clientOf(ctx)), { error: 'A phone needs a name.' });
    }
    await renamePhone(up, clientOf(ctx), ctx.params.deviceId!, name);
    ctx.redirect('/phones');
  });
  router.post('/phones/:deviceId/rotate', async (ctx) => {
    try {
      const { added, ...list } = await rotatePhone(deps, clientOf(ctx), ctx.params.deviceId!);
      await recordAction(up, actorOf(ctx), 'phone.credentials_rotated', added.deviceId, { name: added.name });
      await phonesPage(ctx, list, { added });
    } catch (err) {
      if (!(await refused(ctx, err))) throw err;
    }
  });
  router.post('/phones/:deviceId/revoke', async (ctx) => {
    const revoked = await revokePhone(deps, clientOf(ctx), ctx.params.deviceId!);
    await recordAction(up, actorOf(ctx), 'phone.revoked', ctx.params.deviceId!);
    await phonesPage(ctx, revoked, {
      ok: 'The phone is disconnected and its password, pairing code and tokens no longer work. Give it a new pairing to use it again.',
    });
  });
  router.post('/phones/:deviceId/remove', async (ctx) => {
    await removePhone(up, clientOf(ctx), ctx.params.deviceId!);
    await recordAction(up, actorOf(ctx), 'phone.removed', ctx.params.deviceId!);
    ctx.redirect('/phones');
  });

  // Server-sent events: the state of each phone of the client when the stream opens (a phone may
  // have come online or gone since the page was read), then each that goes online or offline.
  router.get('/phones/events', (ctx) => {
    const clientId = clientOf(ctx);
    const stream = new PassThrough();
    const send = (change: DeviceChange) => stream.write(`event: device\ndata: ${JSON.stringify(change)}\n\n`);
    // Changes that come while the states are read wait for them: an older state never follows a newer one.
    let held: DeviceChange[] | undefined = [];
    const stop = deviceEvents.listen(clientId, (change) => (held ? held.push(change) : send(change)));
    if (!stop) {
      ctx.status = 429;
      ctx.set('Retry-After', '60');
      ctx.type = 'text/plain';
      ctx.body = `Too many live views of your phones are open (${deps.liveStreamsPerAccount} at most): close a tab or a window of this page.`;
      return;
    }
    ctx.req.socket.setTimeout(0);
    ctx.type = 'text/event-stream';
    ctx.set('Cache-Control', 'no-store');
    ctx.set('X-Accel-Buffering', 'no');
    ctx.body = stream;
    stream.write('retry: 2000\n\n');
    void phoneStates(up, clientId)
      .then(
        (states) => states.forEach(send),
        (err: unknown) => deps.log.warn({ err }, "the phones' states not read; the stream sends their changes only"),
      )
      .finally(() => {
        held?.forEach(send);
        held = undefined;
      });
    const ping = setInterval(() => stream.write(': ping\n\n'), 25_000);
    const end = () => {
      clearInterval(ping);
      stop();
    };
    ctx.req.on('close', end);
    stream.on('error', end);
  });

  // After /phones/events, which this pattern would take.
  router.get('/phones/:deviceId', async (ctx) => phonePage(ctx, await phoneDetail(up, clientOf(ctx), ctx.params.deviceId!)));
}
