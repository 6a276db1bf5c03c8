package org.smsgw.agent.app;

import android.security.keystore.KeyGenParameterSpec;
import android.security.keystore.KeyProperties;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import javax.crypto.KeyGenerator;
import javax.crypto.SecretKey;

/**
 * The AES-256-GCM keys that seal the pairing's credentials and the owner's end-to-end passphrase,
 * each made once in the Android Keystore (API 23): they never leave the phone's keystore
 * (hardware-backed where the phone has one), so a backup or a device transfer copies sealed
 * values that open nowhere else.
 */
final class KeystoreKey {
    private static final String STORE = "AndroidKeyStore";
    private static final String CREDENTIALS = "smsgw-credentials";
    private static final String PASSPHRASE = "smsgw-passphrase";

    private KeystoreKey() {
    }

    static SecretKey credentials() throws GeneralSecurityException {
        return key(CREDENTIALS);
    }

    /** Protocol 8: the key of the passphrase (PassphraseStore), apart from the credentials'. */
    static SecretKey passphrase() throws GeneralSecurityException {
        return key(PASSPHRASE);
    }

    private static synchronized SecretKey key(String alias) throws GeneralSecurityException {
        KeyStore store = KeyStore.getInstance(STORE);
        try {
            store.load(null);
        } catch (java.io.IOException e) {
            throw new GeneralSecurityException("the Android Keystore cannot be opened", e);
        }
        KeyStore.Entry entry = store.getEntry(alias, null);
        if (entry instanceof KeyStore.SecretKeyEntry) return ((KeyStore.SecretKeyEntry) entry).getSecretKey();
        KeyGenerator generator = KeyGenerator.getInstance(KeyProperties.KEY_ALGORITHM_AES, STORE);
        generator.init(new KeyGenParameterSpec.Builder(alias, KeyProperties.PURPOSE_ENCRYPT | KeyProperties.PURPOSE_DECRYPT)
                .setBlockModes(KeyProperties.BLOCK_MODE_GCM)
                .setEncryptionPaddings(KeyProperties.ENCRYPTION_PADDING_NONE)
                .setKeySize(256)
                .build());
        return generator.generateKey();
    }
}
