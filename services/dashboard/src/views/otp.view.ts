import type { otp } from '@smsgw/proto';
import type { GuardField, GuardForm } from '../use-cases/otp.use-case';
import type { Mode } from '../use-cases/upstreams';
import { barChart } from './chart';
import { humanDuration } from './duration';
import { html, trusted, type SafeHtml } from './html';
import { csrfField, notice, when } from './layout';
import { modeSwitch } from './messages.view';

export interface OtpPage {
  csrf: string;
  mode: Mode;
  days: number;
  stats: otp.GetOtpStatsResponse__Output;
  holds: otp.Hold__Output[];
  guard: otp.GuardSettings__Output;
  /** The guard's form as typed and refused, with the fields to mark. */
  typed?: { form: GuardForm; invalid: GuardField[] };
  ok?: string;
  error?: string;
}

function statsSection(p: OtpPage): SafeHtml {
  const { stats } = p;
  const countries =
    stats.byCountry.length === 0
      ? html`<p class="muted" data-empty>No code in this period.</p>`
      : html`<div class="table-wrap"><table id="otp-countries"><caption>By destination country</caption>
<thead><tr><th scope="col">Country</th><th scope="col">Sent</th><th scope="col">Verified</th><th scope="col">Conversion</th></tr></thead>
<tbody>${stats.byCountry.map(
          (c) =>
            html`<tr data-country="${c.country}"><td>${c.country}</td><td>${c.sent}</td><td>${c.verified}</td><td>${c.sent ? ((c.verified * 100) / c.sent).toFixed(2) : '0.00'} %</td></tr>`,
        )}</tbody></table></div>`;
  return html`<form method="get" action="/otp" class="card inline">
  ${p.mode === 'test' ? html`<input type="hidden" name="mode" value="test">` : ''}
  <label for="days">Period</label>
  <select id="days" name="days">${[1, 7, 30, 90].map((d) => html`<option value="${d}" ${d === p.days ? 'selected' : ''}>last ${d} day${d === 1 ? '' : 's'}</option>`)}</select>
  <button type="submit">Show</button>
</form>
<section class="tiles">
  <div class="tile"><span class="label">Codes sent</span><span class="big" data-stat="sent">${stats.sent}</span></div>
  <div class="tile"><span class="label">Verified</span><span class="big" data-stat="verified">${stats.verified}</span></div>
  <div class="tile"><span class="label">Expired unverified</span><span class="big" data-stat="expired">${stats.expired}</span></div>
  <div class="tile"><span class="label">Wrong codes</span><span class="big" data-stat="failed_attempts">${stats.failedAttempts}</span></div>
  <div class="tile"><span class="label">Conversion</span><span class="big" data-stat="conversion">${stats.conversionRate.toFixed(2)} %</span></div>
</section>
<figure class="card">${trusted(
    barChart(
      stats.byDay,
      [
        { key: 'sent', label: 'Sent' },
        { key: 'verified', label: 'Verified' },
      ],
      (total, n) => `One-time passwords per day: ${total} sent over ${n} days`,
    ),
  )}<figcaption>By UTC day, ${stats.from.slice(0, 10)} to ${stats.to.slice(0, 10)}</figcaption></figure>
${countries}`;
}

function holdsSection(p: OtpPage): SafeHtml {
  const csrf = csrfField({ csrf: p.csrf });
  const rows = p.holds.map((h) => {
    const state = h.active ? 'held' : h.releasedAt ? html`released ${when(h.releasedAt)}` : 'window over';
    return html`<tr data-hold="${h.holdId}" data-active="${h.active ? 'true' : 'false'}">
<td>${h.scope === 'prefix' ? html`<code>${h.prefix}</code>…` : html`all of <code>${h.country}</code>`}</td><td>${h.country}</td>
<td>${h.requests} asked, ${h.verified} verified</td><td>${when(h.heldAt)}</td><td>${h.active ? when(h.heldUntil) : ''}</td><td>${state}</td>
<td>${h.active ? html`<form method="post" action="/otp/holds/${h.holdId}/release${p.mode === 'test' ? '?mode=test' : ''}" data-confirm="Release this hold? Codes to these numbers go again at once.">${csrf}<button type="submit">Release</button></form>` : ''}</td></tr>`;
  });
  return html`<section class="card" id="holds">
  <h2>Held prefixes</h2>
  <p>When numbers of one prefix (or one country) ask for many codes and verify few, further codes there are refused with <code>OTP_FRAUD_SUSPECTED</code>: bots asking for codes to numbers whose traffic earns someone money (SMS pumping). You get an e-mail, and the <code>otp.fraud_suspected</code> event on the webhooks that chose it. Release a hold when the requests are genuine; it ends by itself after its window.</p>
  ${
    p.holds.length === 0
      ? html`<p class="muted" data-empty>Nothing is held, and nothing was in the last 7 days.</p>`
      : html`<div class="table-wrap"><table id="otp-holds">
<thead><tr><th scope="col">Numbers</th><th scope="col">Country</th><th scope="col">In the window</th><th scope="col">Held at</th><th scope="col">Until</th><th scope="col">State</th><th scope="col">Action</th></tr></thead>
<tbody>${rows}</tbody></table></div>`
  }
</section>`;
}

function guardSection(p: OtpPage): SafeHtml {
  const csrf = csrfField({ csrf: p.csrf });
  const f = p.typed?.form;
  const g = p.guard;
  const value = (name: GuardField, current: number) => (f ? f[name] : String(current));
  const bad = (name: GuardField) => (p.typed?.invalid.includes(name) ? html`aria-invalid="true" aria-describedby="guard-error"` : '');
  const enabled = f ? f.enabled === 'on' : g.enabled;
  return html`<section class="card" id="guard">
  <h2>Pumping guard</h2>
  <p>${g.defaults ? 'These are the defaults.' : 'Your own thresholds.'} Now: a prefix (a number without its last 4 digits) is held when it asked for ${g.prefixMinRequests} codes or more in ${humanDuration(g.windowSeconds)} and verified fewer than ${g.prefixMinConversion} % of them; a whole country at ${g.countryMinRequests} codes under ${g.countryMinConversion} %. One <code>end_user_key</code> gets ${g.endUserLimit} codes per ${humanDuration(g.endUserWindowSeconds)}.</p>
  <form method="post" action="/otp/guard${p.mode === 'test' ? '?mode=test' : ''}" novalidate>${csrf}
    <label class="check"><input type="checkbox" name="enabled" value="on" ${enabled ? 'checked' : ''}> Hold the prefixes and countries that look like pumping</label>
    <label for="g-window">Window, in minutes (5 to 1440)</label><input id="g-window" name="window_minutes" inputmode="numeric" value="${value('window_minutes', Math.round(g.windowSeconds / 60))}" ${bad('window_minutes')}>
    <label for="g-prefix-requests">A prefix is held from this many codes in the window</label><input id="g-prefix-requests" name="prefix_min_requests" inputmode="numeric" value="${value('prefix_min_requests', g.prefixMinRequests)}" ${bad('prefix_min_requests')}>
    <label for="g-prefix-conversion">when fewer than this percent were verified</label><input id="g-prefix-conversion" name="prefix_min_conversion" inputmode="numeric" value="${value('prefix_min_conversion', g.prefixMinConversion)}" ${bad('prefix_min_conversion')}>
    <label for="g-country-requests">A whole country is held from this many codes</label><input id="g-country-requests" name="country_min_requests" inputmode="numeric" value="${value('country_min_requests', g.countryMinRequests)}" ${bad('country_min_requests')}>
    <label for="g-country-conversion">when fewer than this percent were verified</label><input id="g-country-conversion" name="country_min_conversion" inputmode="numeric" value="${value('country_min_conversion', g.countryMinConversion)}" ${bad('country_min_conversion')}>
    <label for="g-user-limit">Codes per end_user_key</label><input id="g-user-limit" name="end_user_limit" inputmode="numeric" value="${value('end_user_limit', g.endUserLimit)}" ${bad('end_user_limit')}>
    <label for="g-user-window">per this many minutes</label><input id="g-user-window" name="end_user_window_minutes" inputmode="numeric" value="${value('end_user_window_minutes', Math.round(g.endUserWindowSeconds / 60))}" ${bad('end_user_window_minutes')}>
    <button type="submit">Save the guard</button>
  </form>
</section>`;
}

/** The one-time passwords page: conversion, the held prefixes and the pumping guard. */
export function otpView(p: OtpPage): SafeHtml {
  return html`${modeSwitch(p.mode, '/otp')}${notice('ok', p.ok)}${p.error ? html`<p class="notice error" role="alert" id="guard-error">${p.error}</p>` : ''}
${statsSection(p)}
${holdsSection(p)}
${guardSection(p)}`;
}
