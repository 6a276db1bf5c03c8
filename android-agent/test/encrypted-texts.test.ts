import { open, seal } from '@smsgw/e2e-envelope';
import { keywordOf, openForSending, sealArrival } from '../src/encrypted-texts';
import type { Sms } from '../src/protocol';

const KDF = { ln: 10, r: 8, p: 1 };
const sms = (text: string): Sms => ({ message_id: 'msg_1', to: '+33612345678', text, priority: 3, attempt: 1 }) as Sms;

describe('protocol 8: encrypted texts on the phone', () => {
  it('when an envelope opens with the passphrase, then the plain text is what is sent', () => {
    expect(openForSending(sms(seal('Bonjour', 'pass', { kdf: KDF })), 'pass')).toEqual({ sms: sms('Bonjour') });
  });

  it('when a clear text comes, then it is sent as it is, with or without a passphrase', () => {
    expect(openForSending(sms('en clair'), undefined)).toEqual({ sms: sms('en clair') });
  });

  it('when the envelope does not open, or the phone has no passphrase, then it fails DECRYPTION_FAILED', () => {
    const envelope = seal('secret', 'pass', { kdf: KDF });
    expect(openForSending(sms(envelope), 'autre')).toEqual({ error: expect.objectContaining({ code: 'DECRYPTION_FAILED' }) });
    expect(openForSending(sms(envelope), undefined)).toEqual({ error: expect.objectContaining({ code: 'DECRYPTION_FAILED' }) });
  });

  it('when the plain text is over 1600 characters, then it fails MESSAGE_TOO_LONG', () => {
    const envelope = seal('é'.repeat(1601), 'pass', { kdf: KDF });
    expect(openForSending(sms(envelope), 'pass')).toEqual({ error: expect.objectContaining({ code: 'MESSAGE_TOO_LONG' }) });
  });

  it('when a received SMS is sealed, then its text opens with the passphrase and a STOP keyword rides beside it', () => {
    const stop = sealArrival({ from: '+33600000009', text: ' arrêt! ' }, 'pass');
    expect(stop.keyword).toEqual({ action: 'add', keyword: 'ARRET' });
    expect(open(stop.text, 'pass')).toBe(' arrêt! ');
    const plain = sealArrival({ from: '+33600000009', text: 'Merci' }, 'pass');
    expect(plain.keyword).toBeUndefined();
    expect(sealArrival({ from: '+33600000009', text: 'STOP' }, undefined)).toEqual({ from: '+33600000009', text: 'STOP' });
    expect(keywordOf('start')).toEqual({ action: 'remove', keyword: 'START' });
  });
});
