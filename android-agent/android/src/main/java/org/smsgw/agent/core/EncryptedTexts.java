package org.smsgw.agent.core;

import java.security.GeneralSecurityException;
import java.text.Normalizer;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Protocol 8 (PROTOCOL.md): an SMS whose text is an end-to-end {@link Envelope} is opened with the
 * owner's passphrase right before it is sent; the outbox keeps the envelope, so the plain text is
 * never at rest. An envelope that does not open fails DECRYPTION_FAILED, a plain text over 1,600
 * characters MESSAGE_TOO_LONG, both not sent (another phone may take it). With a passphrase, a
 * received SMS is sealed before it is written to the inbox, and the platform's default keywords are
 * matched on its plain text first, since the platform cannot read the envelope.
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

    /**
     * The platform's default keywords (docs/api/opt-outs.md): a client's own lists are the
     * platform's, which cannot read an encrypted text, so the phone matches these.
     */
    private static final List<String> OPT_OUT_KEYWORDS = Arrays.asList("STOP", "STOPALL", "UNSUBSCRIBE", "ARRET");
    private static final List<String> START_KEYWORDS = Arrays.asList("START");
    private static final Pattern MARKS = Pattern.compile("\\p{M}+");
    /** JavaScript's whitespace class, which the message service folds with: Java's is ASCII only. */
    private static final Pattern SPACES = Pattern.compile("[\\s\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000\\uFEFF]+");
    /** At the very end, as JavaScript's $ without the m flag: Java's $ also matches before a final line break. */
    private static final Pattern FINAL_STOP = Pattern.compile("[.!]\\z");

    /** A received SMS as it is kept and leaves the phone: its text sealed, and the keyword matched before. */
    public static final class Sealed {
        public final String text;
        /** {@code add} (opt out) or {@code remove} (start); null when the text is no keyword. */
        public final String keywordAction;
        public final String keyword;

        Sealed(String text, String keywordAction, String keyword) {
            this.text = text;
            this.keywordAction = keywordAction;
            this.keyword = keyword;
        }
    }

    /** {@code passphrase} null: the text is kept as it came, with no keyword (the platform matches it). */
    public static Sealed forReceiving(String text, String passphrase) {
        if (passphrase == null) return new Sealed(text, null, null);
        String sealed;
        try {
            sealed = Envelope.seal(text, passphrase);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is missing from this phone", e);
        }
        String folded = keywordOf(text);
        if (OPT_OUT_KEYWORDS.contains(folded)) return new Sealed(sealed, "add", folded);
        if (START_KEYWORDS.contains(folded)) return new Sealed(sealed, "remove", folded);
        return new Sealed(sealed, null, null);
    }

    /** As the message service folds a received text: accents removed, upper case, single spaces, one final '.' or '!' dropped. */
    static String keywordOf(String text) {
        return fold(FINAL_STOP.matcher(fold(text)).replaceFirst(""));
    }

    private static String fold(String text) {
        String bare = MARKS.matcher(Normalizer.normalize(text, Normalizer.Form.NFD)).replaceAll("");
        String spaced = SPACES.matcher(bare.toUpperCase(Locale.ROOT)).replaceAll(" ");
        int start = spaced.startsWith(" ") ? 1 : 0;
        int end = spaced.endsWith(" ") && spaced.length() > start ? spaced.length() - 1 : spaced.length();
        return spaced.substring(start, end);
    }
}
