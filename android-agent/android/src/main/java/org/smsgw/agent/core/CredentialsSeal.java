package org.smsgw.agent.core;

import java.nio.charset.Charset;
import java.security.GeneralSecurityException;
import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;

/**
 * The pairing's credentials as the app stores them: sealed with AES-GCM under a key the caller
 * holds (on the phone, an Android Keystore key that never leaves its keystore), so that the
 * stored text is worth nothing elsewhere: not in a backup, not on the phone a device transfer
 * copies the app's data to. Written {@code v1:<iv>:<ciphertext>} (base64). Credentials stored in
 * clear by an app of before are read once, for the caller to seal them.
 */
public final class CredentialsSeal {
    private static final Charset UTF8 = Charset.forName("UTF-8");
    private static final String PREFIX = "v1:";
    private static final int TAG_BITS = 128;

    /** What was stored: the credentials, and whether they were in clear (to be sealed now). */
    public static final class Opened {
        public final Credentials credentials;
        public final boolean wasClear;

        Opened(Credentials credentials, boolean wasClear) {
            this.credentials = credentials;
            this.wasClear = wasClear;
        }
    }

    private CredentialsSeal() {
    }

    /** The credentials sealed under {@code key} (its cipher chooses the IV, as an Android Keystore key requires). */
    public static String seal(SecretKey key, Credentials credentials) throws GeneralSecurityException {
        Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
        cipher.init(Cipher.ENCRYPT_MODE, key);
        byte[] sealed = cipher.doFinal(credentials.toJson().getBytes(UTF8));
        return PREFIX + Base64.encode(cipher.getIV()) + ":" + Base64.encode(sealed);
    }

    /**
     * The stored credentials: sealed ones opened with {@code key}, clear ones of before as they
     * are; null when nothing usable is stored (another key sealed them, they were changed, or
     * they are not credentials): the phone then pairs again.
     */
    public static Opened open(SecretKey key, String stored) {
        if (stored == null) return null;
        if (!stored.startsWith(PREFIX)) {
            Credentials clear = Credentials.fromJson(stored);
            return clear == null ? null : new Opened(clear, true);
        }
        String[] parts = stored.substring(PREFIX.length()).split(":", -1);
        if (parts.length != 2 || key == null) return null;
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, Base64.decode(parts[0])));
            Credentials credentials = Credentials.fromJson(new String(cipher.doFinal(Base64.decode(parts[1])), UTF8));
            return credentials == null ? null : new Opened(credentials, false);
        } catch (GeneralSecurityException e) {
            return null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
