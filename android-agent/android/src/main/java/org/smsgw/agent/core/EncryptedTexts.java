package org.smsgw.agent.core;

/**
 * Protocol 8 (PROTOCOL.md): an SMS whose text is an end-to-end {@link Envelope} is opened with the
 * owner's passphrase right before it is sent; the outbox keeps the envelope, so the plain text is
 * never at rest. An envelope that does not open fails DECRYPTION_FAILED, a plain text over 1,600
 * characters MESSAGE_TOO_LONG, both not sent (another phone may take it).
 */
public final class EncryptedTexts {
    static final int MAX_PLAIN_CHARACTERS = 1600;

    /** The text to send, or the reason not to send it. */
    public static final class Opened {
        public final String text;
        public final SmsError error;

        private Opened(String text, SmsError error) {
            this.text = text;
            this.error = error;
        }
    }

    private EncryptedTexts() {
    }

    /** {@code passphrase} null: the owner set none, and an envelope cannot be opened. */
    public static Opened forSending(String text, String passphrase) {
        if (!Envelope.isEnvelope(text)) return new Opened(text, null);
        if (passphrase == null) return new Opened(null, new SmsError(SmsError.DECRYPTION_FAILED, "no passphrase on this phone"));
        String plain;
        try {
            plain = Envelope.open(text, passphrase);
        } catch (Envelope.DecryptionFailedException e) {
            return new Opened(null, new SmsError(SmsError.DECRYPTION_FAILED, e.getMessage()));
        }
        if (plain.codePointCount(0, plain.length()) > MAX_PLAIN_CHARACTERS) {
            return new Opened(null, new SmsError(SmsError.MESSAGE_TOO_LONG, "the plain text is over " + MAX_PLAIN_CHARACTERS + " characters"));
        }
        return new Opened(plain, null);
    }
}
