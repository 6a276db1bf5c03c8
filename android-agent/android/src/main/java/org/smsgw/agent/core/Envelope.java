package org.smsgw.agent.core;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The end-to-end envelope, version 1 (docs/api/encryption.md):
 * {@code $smsgw-e2e$v1$scrypt$ln=14,r=8,p=1$<salt>$<nonce>$<ciphertext and tag>}, base64url without
 * padding; key = scrypt(passphrase, salt, 2^ln, r, p, 32); AES-256-GCM with the header (the text
 * before the last '$') as additional data. The passphrase stays on the phone.
 */
public final class Envelope {
    public static final String PREFIX = "$smsgw-e2e$v1$";
    private static final Charset UTF8 = Charset.forName("UTF-8");
    private static final Pattern SHAPE = Pattern.compile(
            "\\$smsgw-e2e\\$v1\\$scrypt\\$ln=([1-9][0-9]?),r=([1-9][0-9]?),p=([1-9])\\$([A-Za-z0-9_-]+)\\$([A-Za-z0-9_-]+)\\$([A-Za-z0-9_-]+)");
    private static final SecureRandom RANDOM = new SecureRandom();

    /** The envelope does not open: wrong passphrase, altered or malformed envelope. */
    public static final class DecryptionFailedException extends Exception {
        public DecryptionFailedException(String reason) {
            super("the envelope does not open: " + reason);
        }
    }

    private Envelope() {
    }

    public static boolean isEnvelope(String text) {
        return text != null && text.startsWith(PREFIX);
    }

    public static String seal(String plaintext, String passphrase) throws GeneralSecurityException {
        byte[] salt = new byte[16];
        byte[] nonce = new byte[12];
        RANDOM.nextBytes(salt);
        RANDOM.nextBytes(nonce);
        return seal(plaintext, passphrase, 14, 8, 1, salt, nonce);
    }

    /** With given parameters, salt and nonce: for test vectors only. */
    public static String seal(String plaintext, String passphrase, int ln, int r, int p, byte[] salt, byte[] nonce)
            throws GeneralSecurityException {
        if (!withinLimits(ln, r, p)) throw new IllegalArgumentException("scrypt parameters out of range");
        if (salt.length != 16 || nonce.length != 12) throw new IllegalArgumentException("salt is 16 bytes, nonce 12");
        String header = PREFIX + "scrypt$ln=" + ln + ",r=" + r + ",p=" + p + "$" + b64(salt) + "$" + b64(nonce);
        Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
        cipher.init(Cipher.ENCRYPT_MODE, key(passphrase, salt, ln, r, p), new GCMParameterSpec(128, nonce));
        cipher.updateAAD(header.getBytes(UTF8));
        return header + "$" + b64(cipher.doFinal(plaintext.getBytes(UTF8)));
    }

    public static String open(String envelope, String passphrase) throws DecryptionFailedException {
        Matcher m = SHAPE.matcher(envelope);
        if (!m.matches()) throw new DecryptionFailedException(isEnvelope(envelope) ? "malformed envelope" : "not an envelope");
        int ln = Integer.parseInt(m.group(1));
        int r = Integer.parseInt(m.group(2));
        int p = Integer.parseInt(m.group(3));
        if (!withinLimits(ln, r, p)) throw new DecryptionFailedException("key derivation parameters out of range");
        byte[] salt = unb64(m.group(4));
        byte[] nonce = unb64(m.group(5));
        byte[] body = unb64(m.group(6));
        if (salt == null || salt.length != 16) throw new DecryptionFailedException("bad salt");
        if (nonce == null || nonce.length != 12) throw new DecryptionFailedException("bad nonce");
        if (body == null || body.length < 16) throw new DecryptionFailedException("bad ciphertext");
        byte[] plain;
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.DECRYPT_MODE, key(passphrase, salt, ln, r, p), new GCMParameterSpec(128, nonce));
            cipher.updateAAD(envelope.substring(0, envelope.lastIndexOf('$')).getBytes(UTF8));
            plain = cipher.doFinal(body);
        } catch (GeneralSecurityException e) {
            throw new DecryptionFailedException("authentication failed (wrong passphrase or altered envelope)");
        }
        try {
            return UTF8.newDecoder().onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(plain)).toString();
        } catch (CharacterCodingException e) {
            throw new DecryptionFailedException("plain text is not UTF-8");
        }
    }

    private static SecretKeySpec key(String passphrase, byte[] salt, int ln, int r, int p) throws GeneralSecurityException {
        return new SecretKeySpec(Scrypt.derive(passphrase.getBytes(UTF8), salt, 1 << ln, r, p, 32), "AES");
    }

    private static boolean withinLimits(int ln, int r, int p) {
        return ln >= 10 && ln <= 20 && r >= 1 && r <= 16 && p >= 1 && p <= 4;
    }

    private static String b64(byte[] data) {
        String padded = Base64.encode(data);
        return padded.replace('+', '-').replace('/', '_').replace("=", "");
    }

    /** Canonical base64url only: a field that does not re-encode to itself is refused. */
    private static byte[] unb64(String text) {
        if (text.length() % 4 == 1) return null;
        StringBuilder padded = new StringBuilder(text.replace('-', '+').replace('_', '/'));
        while (padded.length() % 4 != 0) padded.append('=');
        try {
            byte[] data = Base64.decode(padded.toString());
            return b64(data).equals(text) ? data : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
