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
    seen.textContent = `${change.at.replace('T', ' ').slice(0, 19)} UTC`;
  });
}
