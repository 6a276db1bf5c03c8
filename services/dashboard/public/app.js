// The dashboard works without this script; it adds copy buttons, confirmations
// and the phones' live state. No framework: the pages are drawn by the server.
'use strict';

document.addEventListener('click', (event) => {
  const button = event.target.closest('[data-copy]');
  if (!button) return;
  const input = document.getElementById(button.dataset.copy);
  input.select();
  const done = () => {
    button.textContent = 'Copied';
    setTimeout(() => (button.textContent = 'Copy'), 2000);
  };
  if (navigator.clipboard) navigator.clipboard.writeText(input.value).then(done, () => document.execCommand('copy') && done());
  else if (document.execCommand('copy')) done();
});

document.addEventListener('submit', (event) => {
  const form = event.target.closest('form[data-confirm]');
  if (form && !window.confirm(form.dataset.confirm)) event.preventDefault();
});

const live = document.querySelector('[data-live]');
if (live && window.EventSource) {
  const source = new EventSource(live.dataset.live);
  source.addEventListener('device', (event) => {
    const change = JSON.parse(event.data);
    const row = live.querySelector(`tr[data-device="${CSS.escape(change.device_id)}"]`);
    if (!row) return;
    const state = row.querySelector('[data-state]');
    state.textContent = change.status;
    state.className = `state ${change.status}`;
    const seen = row.querySelector('[data-seen]');
    if (change.at) seen.textContent = `${change.at.replace('T', ' ').slice(0, 19)} UTC`;
  });
}

// A campaign under way: its counts are drawn again from the page every few seconds.
const refreshed = document.querySelector('[data-refresh]');
if (refreshed && refreshed.dataset.refresh && window.DOMParser) {
  const timer = setInterval(
    async () => {
      try {
        const res = await fetch(window.location.pathname, { credentials: 'same-origin' });
        if (!res.ok) return;
        const next = new DOMParser().parseFromString(await res.text(), 'text/html').querySelector('[data-refresh]');
        if (!next) return;
        refreshed.innerHTML = next.innerHTML;
        if (!next.dataset.refresh) clearInterval(timer);
      } catch {
        // The next tick tries again.
      }
    },
    Number(refreshed.dataset.refresh) || 2000,
  );
}

// A campaign's CSV file, read here and posted as text (the server takes no multipart upload).
const upload = document.querySelector('form[data-csv-upload]');
if (upload) {
  upload.addEventListener('submit', async (event) => {
    const file = upload.querySelector('[data-csv-file]').files[0];
    if (!file || upload.dataset.read) return;
    event.preventDefault();
    upload.querySelector('[data-csv-text]').value = await file.text();
    upload.querySelector('[data-csv-name]').value = file.name;
    upload.dataset.read = '1';
    upload.requestSubmit();
  });
}

// End-to-end encrypted texts (docs/api/encryption.md): opened here with the passphrase typed in
// this page, which is never sent anywhere.
const opener = document.querySelector('[data-open-envelopes]');
if (opener && window.SmsgwEnvelope) {
  opener.querySelector('button').addEventListener('click', async () => {
    const passphrase = opener.querySelector('input').value;
    const status = opener.querySelector('[data-envelope-status]');
    let opened = 0;
    let failed = 0;
    for (const node of document.querySelectorAll('[data-envelope]')) {
      const envelope = node.dataset.envelopeText || node.textContent;
      node.dataset.envelopeText = envelope;
      try {
        node.textContent = await window.SmsgwEnvelope.open(envelope, passphrase);
        node.dataset.envelope = 'opened';
        opened++;
      } catch {
        node.textContent = envelope;
        node.dataset.envelope = 'closed';
        failed++;
      }
    }
    status.textContent = `${opened} text(s) decrypted${failed ? `, ${failed} did not open with this passphrase` : ''}.`;
  });
}
