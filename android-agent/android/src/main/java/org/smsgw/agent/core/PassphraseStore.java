package org.smsgw.agent.core;

import java.nio.charset.Charset;
import java.security.GeneralSecurityException;
import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;

/**
 * The owner's end-to-end passphrase (protocol 8) as the app keeps it: only on the phone, in its
 * private storage, sealed with AES-GCM under a key the caller holds (on the phone, an Android
 * Keystore key that never leaves its keystore), written {@code v1:<iv>:<ciphertext>} (base64). It
 * is never sent anywhere: the agent opens envelopes and seals received SMS with it.
 */
public final class PassphraseStore {
    /** Where the sealed text is kept: the app's private preferences on the phone. */
    public interface Prefs {
        String get(String name);

        /** Written to disk before it returns. */
        void put(String name, String value);

        void remove(String name);
    }

    /** The sealing key; on the phone, made once in the Android Keystore. */
    public interface Keys {
        SecretKey key() throws GeneralSecurityException;
    }

    /** Longer is refused: the CLI and the libraries read a passphrase file's first line, and no one types more. */
    public static final int MAX_CHARACTERS = 1024;
    static final String NAME = "e2e_passphrase";
    private static final Charset UTF8 = Charset.forName("UTF-8");
    private static final String PREFIX = "v1:";
    private static final int TAG_BITS = 128;

    private final Prefs prefs;
    private final Keys keys;

    public PassphraseStore(Prefs prefs, Keys keys) {
        this.prefs = prefs;
        this.keys = keys;
    }

    /** What is wrong with a passphrase the owner typed, for the screen; null when it can be saved. */
    public static String problem(String entered) {
        if (entered == null || entered.isEmpty()) return "Type the passphrase first.";
        if (entered.indexOf('\n') >= 0 || entered.indexOf('\r') >= 0) {
            return "The passphrase is one line: the command line and the libraries read the first line of a passphrase file.";
        }
        if (entered.codePointCount(0, entered.length()) > MAX_CHARACTERS) return "The passphrase is over " + MAX_CHARACTERS + " characters.";
        return null;
    }

    /** Keeps the passphrase exactly as typed (no trimming: the envelope uses it as given), sealed. */
    public void save(String passphrase) throws GeneralSecurityException {
        String problem = problem(passphrase);
        if (problem != null) throw new IllegalArgumentException(problem);
        Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
        // The cipher chooses the IV, as an Android Keystore key requires.
        cipher.init(Cipher.ENCRYPT_MODE, keys.key());
        byte[] sealed = cipher.doFinal(passphrase.getBytes(UTF8));
        prefs.put(NAME, PREFIX + Base64.encode(cipher.getIV()) + ":" + Base64.encode(sealed));
    }

    /** Forgets it: encrypted SMS then fail DECRYPTION_FAILED, received SMS go in clear. */
    public void clear() {
        prefs.remove(NAME);
    }

    public boolean isSet() {
        return prefs.get(NAME) != null;
    }

    /**
     * The passphrase, or null when none is kept or it no longer opens (the key is gone, as after
     * a restore on another phone): then the owner types it again.
     */
    public String passphrase() {
        String stored = prefs.get(NAME);
        if (stored == null || !stored.startsWith(PREFIX)) return null;
        String[] parts = stored.substring(PREFIX.length()).split(":", -1);
        if (parts.length != 2) return null;
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.DECRYPT_MODE, keys.key(), new GCMParameterSpec(TAG_BITS, Base64.decode(parts[0])));
            return new String(cipher.doFinal(Base64.decode(parts[1])), UTF8);
        } catch (GeneralSecurityException e) {
            return null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
