package org.smsgw.agent.app;

import android.security.keystore.KeyGenParameterSpec;
import android.security.keystore.KeyProperties;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import javax.crypto.KeyGenerator;
import javax.crypto.SecretKey;

/**
 * The AES-256-GCM key that seals the pairing's credentials, made once in the Android Keystore
 * (API 23): it never leaves the phone's keystore (hardware-backed where the phone has one), so a
 * backup or a device transfer copies sealed credentials that open nowhere else.
 */
final class KeystoreKey {
    private static final String STORE = "AndroidKeyStore";
    private static final String ALIAS = "smsgw-credentials";

    private KeystoreKey() {
    }

    static synchronized SecretKey credentials() throws GeneralSecurityException {
        KeyStore store = KeyStore.getInstance(STORE);
        try {
            store.load(null);
        } catch (java.io.IOException e) {
            throw new GeneralSecurityException("the Android Keystore cannot be opened", e);
        }
        KeyStore.Entry entry = store.getEntry(ALIAS, null);
        if (entry instanceof KeyStore.SecretKeyEntry) return ((KeyStore.SecretKeyEntry) entry).getSecretKey();
        KeyGenerator generator = KeyGenerator.getInstance(KeyProperties.KEY_ALGORITHM_AES, STORE);
        generator.init(new KeyGenParameterSpec.Builder(ALIAS, KeyProperties.PURPOSE_ENCRYPT | KeyProperties.PURPOSE_DECRYPT)
                .setBlockModes(KeyProperties.BLOCK_MODE_GCM)
                .setEncryptionPaddings(KeyProperties.ENCRYPTION_PADDING_NONE)
                .setKeySize(256)
                .build());
        return generator.generateKey();
    }
}
