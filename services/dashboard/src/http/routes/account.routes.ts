import { createHash } from 'node:crypto';
import { AppError, FixedWindowCounter, keyModeToProto, modeFromProto, parseMode } from '@smsgw/platform';
import { copyable, csrfField, layout, notice, when } from '../../views/layout';
import { cookieOptions, explain, field, page, pageContext, SESSION_COOKIE, type AppDeps, type DashContext, type DashRouter } from '../app';
import { html, type SafeHtml } from '../html';

function anonymous(ctx: DashContext, title: string, body: SafeHtml, status = 200): void {
  ctx.status = status;
  ctx.type = 'html';
  ctx.body = layout(title, pageContext(ctx), body);
}

/** Only a local path is followed after sign-in (never another site). */
const safeNext = (next: string | undefined) => (next && /^\/[A-Za-z0-9/_-]*$/.test(next) && !next.startsWith('//') ? next : '/');

function credentialsForm(ctx: DashContext, kind: 'signin' | 'signup', error?: string, email = ''): SafeHtml {
  const signup = kind === 'signup';
  return html`${notice('error', error)}
<form method="post" action="/${kind}${signup ? '' : `?next=${encodeURIComponent(safeNext(ctx.query.next as string | undefined))}`}" class="card narrow">
  ${csrfField(pageContext(ctx))}
  <label for="email">E-mail</label>
  <input id="email" name="email" type="email" autocomplete="email" required value="${email}">
  ${signup ? html`<label for="name">Company or project name</label><input id="name" name="name" type="text" autocomplete="organization">` : ''}
  <label for="password">Password${signup ? ' (10 characters or more)' : ''}</label>
  <input id="password" name="password" type="password" autocomplete="${signup ? 'new-password' : 'current-password'}" required minlength="${signup ? 10 : 1}">
  <button type="submit">${signup ? 'Create my account' : 'Sign in'}</button>
</form>
<p>${signup ? html`Already have an account? <a href="/signin">Sign in</a>` : html`New here? <a href="/signup">Create an account</a>`}</p>`;
}

export function accountRoutes(router: DashRouter, deps: AppDeps, part: 'public' | 'private'): void {
  const { up, sessions, redis } = deps;

  async function startSession(ctx: DashContext, user: { userId: string; clientId: string; email: string }): Promise<void> {
    const { token } = await sessions.create(user);
    ctx.cookies.set(SESSION_COOKIE, token, cookieOptions());
  }

  /**
   * The failed sign-ins of the address and of the e-mail. Each attempt is checked and counted in
   * one step (refused while either is at the limit), and given back when it turns out right or
   * the account service could not answer: attempts sent at once cannot all pass.
   */
  const signIns = new FixedWindowCounter(redis, { windowMs: deps.signIn.windowMs });
  const signInKeys = (ctx: DashContext, email: string) => [`dashboard:signin:ip:${ctx.ip}`, `dashboard:signin:email:${createHash('sha256').update(email.toLowerCase()).digest('hex')}`];

  if (part === 'public') {
    router.get('/signup', (ctx) => anonymous(ctx, 'Create your account', credentialsForm(ctx, 'signup')));
    router.post('/signup', async (ctx) => {
      const email = field(ctx, 'email');
      try {
        const created = await up.accounts.signUp({ email, password: ctx.state.form!.get('password') ?? '', name: field(ctx, 'name') });
        await startSession(ctx, { userId: created.user!.userId, clientId: created.user!.clientId, email: created.user!.email });
        ctx.redirect('/keys?welcome=1');
      } catch (err) {
        if (!(err instanceof AppError) || err.code !== 'VALIDATION_ERROR') throw err;
        anonymous(ctx, 'Create your account', credentialsForm(ctx, 'signup', explain(err), email), 400);
      }
    });
    router.get('/signin', (ctx) => anonymous(ctx, 'Sign in', credentialsForm(ctx, 'signin')));
    router.post('/signin', async (ctx) => {
      const email = field(ctx, 'email');
      const keys = signInKeys(ctx, email);
      if (!(await signIns.take(keys, deps.signIn.maxFailures)).allowed) {
        return anonymous(ctx, 'Sign in', credentialsForm(ctx, 'signin', 'Too many failed sign-ins. Wait 15 minutes and try again.', email), 429);
      }
      const user = await up.accounts.signIn({ email, password: ctx.state.form!.get('password') ?? '' }).catch(async (err: unknown) => {
        await signIns.refund(...keys);
        throw err;
      });
      if (!user.userId) return anonymous(ctx, 'Sign in', credentialsForm(ctx, 'signin', 'Wrong e-mail or password.', email), 401);
      await signIns.refund(...keys);
      await startSession(ctx, { userId: user.userId, clientId: user.clientId, email: user.email });
      ctx.redirect(safeNext(ctx.query.next as string | undefined));
    });
    return;
  }

  router.post('/signout', async (ctx) => {
    await sessions.end(ctx.state.token!);
    ctx.cookies.set(SESSION_COOKIE, '', cookieOptions(0));
    ctx.redirect('/signin');
  });

  router.get('/', async (ctx) => {
    const s = ctx.state.session!;
    const [stats, devices] = await Promise.all([
      up.messages.getStats({ clientId: s.clientId, mode: 'MODE_LIVE', fromDate: new Date(Date.now() - 7 * 86_400_000).toISOString(), toDate: '', deviceId: '' }),
      up.devices.listDevices({ clientId: s.clientId, onlineOnly: false }),
    ]);
    const online = devices.devices.filter((d) => d.status === 'online').length;
    page(
      ctx,
      'Overview',
      'overview',
      html`<section class="tiles">
  <div class="tile"><span class="label">Client id</span><code class="big">${s.clientId}</code></div>
  <div class="tile"><span class="label">Sent, last 7 days</span><span class="big">${stats.totalSent}</span></div>
  <div class="tile"><span class="label">Delivery rate</span><span class="big">${stats.deliveryRate.toFixed(2)} %</span></div>
  <div class="tile"><span class="label">Phones online</span><span class="big">${online} / ${devices.devices.length}</span></div>
</section>
<p>Use your client id and an <a href="/keys">API key</a> in the <code>X-Client-ID</code> and <code>X-API-Key</code> headers. <a href="/phones">Add a phone</a> to send through it.</p>`,
    );
  });

  async function keysPage(ctx: DashContext, fresh?: { key: string; mode: string; name: string }, error?: string) {
    const s = ctx.state.session!;
    const { keys } = await up.accounts.listApiKeys({ clientId: s.clientId });
    const welcome = ctx.query.welcome === '1' ? notice('ok', 'Your account is ready. Create a key below, or use the live and test keys made for you (their values are not shown again: create a new one to copy it).') : '';
    page(
      ctx,
      'API keys',
      'keys',
      html`${welcome}${notice('error', error)}
${fresh ? html`<div class="card reveal" role="status"><p><strong>Your new ${fresh.mode} key "${fresh.name}".</strong> Copy it now: it is shown only once.</p>${copyable('API key', fresh.key, 'new-key')}</div>` : ''}
<form method="post" action="/keys" class="card inline">
  ${csrfField({ csrf: s.csrf })}
  <label for="key-name">Name</label><input id="key-name" name="name" required maxlength="100" placeholder="Production server">
  <label for="key-mode">Mode</label><select id="key-mode" name="mode"><option value="live">live</option><option value="test">test</option></select>
  <button type="submit">Create a key</button>
</form>
<div class="table-wrap"><table>
<caption>Your keys, newest first</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Mode</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">State</th></tr></thead>
<tbody>${keys.map(
        (k) => html`<tr>
  <td>${k.label}</td><td><code>${k.prefix}</code></td><td>${modeFromProto(k.mode)}</td><td>${when(k.createdAt)}</td><td>${when(k.lastUsedAt)}</td>
  <td>${k.revokedAt ? html`revoked ${when(k.revokedAt)}` : html`<form method="post" action="/keys/${k.keyId}/revoke" data-confirm="Revoke this key? Requests with it will be refused within 5 seconds.">${csrfField({ csrf: s.csrf })}<button type="submit" class="danger">Revoke</button></form>`}</td>
</tr>`,
      )}</tbody></table></div>`,
    );
  }

  router.get('/keys', (ctx) => keysPage(ctx));
  router.post('/keys', async (ctx) => {
    const name = field(ctx, 'name').slice(0, 100);
    const mode = parseMode(field(ctx, 'mode'));
    if (!name) return keysPage(ctx, undefined, 'Give the key a name, to recognise it later.');
    const created = await up.accounts.createApiKey({ clientId: ctx.state.session!.clientId, mode: keyModeToProto(mode), label: name });
    await keysPage(ctx, { key: created.apiKey, mode, name });
  });
  router.post('/keys/:keyId/revoke', async (ctx) => {
    await up.accounts.revokeApiKeyById({ clientId: ctx.state.session!.clientId, keyId: ctx.params.keyId! });
    ctx.redirect('/keys');
  });

  async function settingsPage(ctx: DashContext, extra: { secret?: string; ok?: string; error?: string } = {}) {
    const s = ctx.state.session!;
    const client = await up.accounts.getClient({ clientId: s.clientId });
    const csrf = csrfField({ csrf: s.csrf });
    page(
      ctx,
      'Settings',
      'settings',
      html`${notice('ok', extra.ok)}${notice('error', extra.error)}
<section class="card">
  <h2>Signing secret</h2>
  <p>Signs the webhooks sent to a message's own <code>webhook_url</code> (<code>X-Webhook-Signature</code>). Global endpoints have secrets of their own.</p>
  ${extra.secret ? copyable('Signing secret', extra.secret, 'signing-secret') : html`<form method="post" action="/settings/secret">${csrf}<button type="submit">Show the signing secret</button></form>`}
  <form method="post" action="/settings/secret/rotate" data-confirm="Rotate the secret? Webhooks are signed with the new one within a minute; update your receivers.">${csrf}<button type="submit" class="danger">Rotate the secret</button></form>
</section>
<section class="card">
  <h2>Alert e-mails</h2>
  <form method="post" action="/settings/alerts">${csrf}
    <label for="alert-email">Address that receives alerts (a webhook dropped after its last attempt)</label>
    <input id="alert-email" name="email" type="email" required value="${client.email}">
    <button type="submit">Save</button>
  </form>
</section>
<section class="card">
  <h2>Password</h2>
  <form method="post" action="/settings/password">${csrf}
    <label for="current">Current password</label><input id="current" name="current" type="password" autocomplete="current-password" required>
    <label for="new">New password (10 characters or more)</label><input id="new" name="new" type="password" autocomplete="new-password" required minlength="10">
    <button type="submit">Change the password</button>
  </form>
</section>`,
    );
  }

  router.get('/settings', (ctx) => settingsPage(ctx));
  router.post('/settings/secret', async (ctx) => {
    const { secret } = await up.accounts.getSigningSecret({ clientId: ctx.state.session!.clientId });
    await settingsPage(ctx, { secret });
  });
  router.post('/settings/secret/rotate', async (ctx) => {
    const { secret } = await up.accounts.rotateSigningSecret({ clientId: ctx.state.session!.clientId });
    await settingsPage(ctx, { secret, ok: 'The signing secret was rotated. Here is the new one.' });
  });
  router.post('/settings/alerts', async (ctx) => {
    try {
      await up.accounts.updateClient({ clientId: ctx.state.session!.clientId, email: field(ctx, 'email'), name: '' });
      await settingsPage(ctx, { ok: 'Alert e-mails go to the new address.' });
    } catch (err) {
      await settingsPage(ctx, { error: explain(err) });
    }
  });
  router.post('/settings/password', async (ctx) => {
    const s = ctx.state.session!;
    try {
      const { changed } = await up.accounts.changePassword({ userId: s.userId, currentPassword: ctx.state.form!.get('current') ?? '', newPassword: ctx.state.form!.get('new') ?? '' });
      if (!changed) return settingsPage(ctx, { error: 'The current password is wrong.' });
      await sessions.endOthers(s.userId, ctx.state.token!);
      await settingsPage(ctx, { ok: 'Password changed. Your other sessions were signed out.' });
    } catch (err) {
      await settingsPage(ctx, { error: explain(err) });
    }
  });
}
