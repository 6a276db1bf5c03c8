import { parseMode } from '@smsgw/platform';
import {
  createSmppCredential,
  listSmppCredentials,
  revokeSmppCredential,
  SMPP_BIND_TYPES,
  type SmppBindTypeForm,
} from '../../use-cases/smpp.use-case';
import { smppView, type SmppPage } from '../../views/smpp.view';
import { field, page, type AppDeps, type DashContext, type DashRouter } from '../context';
import { reauthOf, refusal } from './account.routes';

/** The SMPP page: the client's SMPP credentials, a new one (password shown once), a revocation. */
export function smppRoutes(router: DashRouter, deps: AppDeps): void {
  const { up } = deps;
  const sessionOf = (ctx: DashContext) => ctx.state.session!;

  async function smppPage(ctx: DashContext, notes: Partial<Pick<SmppPage, 'credentials' | 'fresh' | 'error' | 'typed'>> = {}) {
    const s = sessionOf(ctx);
    const [credentials, phones] = await Promise.all([
      notes.credentials ?? listSmppCredentials(up, s.clientId),
      up.devices.listDevices({ clientId: s.clientId, onlineOnly: false, sample: 0 }),
    ]);
    page(
      ctx,
      'SMPP',
      'smpp',
      smppView({
        csrf: s.csrf,
        credentials,
        phones: phones.devices.map((d) => ({ deviceId: d.deviceId, name: d.name })),
        server: deps.smppAddress ?? 'the SMPP address of your operator',
        ...notes,
      }),
    );
  }

  router.get('/smpp', async (ctx) => smppPage(ctx));
  router.post('/smpp', async (ctx) => {
    const label = field(ctx, 'label').slice(0, 100);
    const asked = field(ctx, 'bind_type');
    const bindType: SmppBindTypeForm = (SMPP_BIND_TYPES as readonly string[]).includes(asked) ? (asked as SmppBindTypeForm) : 'transceiver';
    const mode = parseMode(field(ctx, 'mode'));
    const deviceId = field(ctx, 'device_id').slice(0, 64);
    const typed = { label, bindType, mode, deviceId };
    if (!label) return smppPage(ctx, { error: 'Give the credential a name, to recognise it later.', typed });
    const made = await createSmppCredential(
      deps,
      sessionOf(ctx),
      reauthOf(ctx),
      { label, bindType, mode, deviceId },
      ctx.state.clientAddress,
    );
    const refused = refusal(ctx, made.confirmation) || made.error;
    if (refused) return smppPage(ctx, { credentials: made.credentials, error: refused, typed });
    await smppPage(ctx, { credentials: made.credentials, fresh: { ...made.created!, label } });
  });
  router.post('/smpp/:credentialId/revoke', async (ctx) => {
    await revokeSmppCredential(up, sessionOf(ctx), ctx.params.credentialId!, ctx.state.clientAddress);
    ctx.redirect('/smpp');
  });
}
