package org.smsgw.agent.app;

import android.content.Context;
import android.content.SharedPreferences;
import java.security.GeneralSecurityException;
import javax.crypto.SecretKey;
import org.smsgw.agent.core.Credentials;
import org.smsgw.agent.core.CredentialsSeal;
import org.smsgw.agent.core.PassphraseStore;

/**
 * The pairing's result, the optional CA certificate and the end-to-end passphrase (sealed under
 * a Keystore key of its own: PassphraseStore), in the app's private preferences. The
 * credentials (the device token) are sealed under an Android Keystore key (CredentialsSeal,
 * KeystoreKey): the preferences are also left out of backups and device transfers (allowBackup
 * off, res/xml's rules), and a copy that leaves the phone anyway opens nowhere else.
 */
final class CredentialsStore {
    private static final String FILE = "agent";
    private final SharedPreferences prefs;

    CredentialsStore(Context context) {
        prefs = context.getSharedPreferences(FILE, Context.MODE_PRIVATE);
    }

    /** The stored credentials; null when none, or when this phone's key cannot open them (the phone pairs again). */
    Credentials credentials() {
        String stored = prefs.getString("credentials", null);
        if (stored == null) return null;
        SecretKey key;
        try {
            key = KeystoreKey.credentials();
        } catch (GeneralSecurityException e) {
            AndroidLog.INSTANCE.warn("the Android Keystore key of the credentials is not available", e);
            return null;
        }
        CredentialsSeal.Opened opened = CredentialsSeal.open(key, stored);
        if (opened == null) return null;
        // Credentials an app of before stored in clear: sealed from now on.
        if (opened.wasClear) save(opened.credentials);
        return opened.credentials;
    }

    /** commit(), not apply(): the service may be started right after, in another thread. */
    void save(Credentials credentials) {
        String sealed;
        try {
            sealed = CredentialsSeal.seal(KeystoreKey.credentials(), credentials);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("the credentials cannot be sealed with the Android Keystore: " + e.getMessage(), e);
        }
        prefs.edit().putString("credentials", sealed).remove("stopped_reason").commit();
    }

    /** The owner's passphrase (protocol 8) in these preferences, sealed under its own Android Keystore key. */
    PassphraseStore passphraseStore() {
        return new PassphraseStore(new PassphraseStore.Prefs() {
            @Override
            public String get(String name) {
                return prefs.getString(name, null);
            }

            @Override
            public void put(String name, String value) {
                prefs.edit().putString(name, value).commit();
            }

            @Override
            public void remove(String name) {
                prefs.edit().remove(name).commit();
            }
        }, new PassphraseStore.Keys() {
            @Override
            public SecretKey key() throws GeneralSecurityException {
                return KeystoreKey.passphrase();
            }
        });
    }

    void forget() {
        prefs.edit().remove("credentials").commit();
    }

    String caPem() {
        return prefs.getString("ca_pem", null);
    }

    void saveCaPem(String pem) {
        prefs.edit().putString("ca_pem", pem).commit();
    }

    void forgetCa() {
        prefs.edit().remove("ca_pem").commit();
    }

    /** Why the agent stopped by itself (token refused, replaced), shown until the user acts. */
    String stoppedReason() {
        return prefs.getString("stopped_reason", null);
    }

    void saveStoppedReason(String reason) {
        prefs.edit().putString("stopped_reason", reason).commit();
    }

    /** Whether the user stopped the agent: then boot does not start it again. */
    boolean stoppedByUser() {
        return prefs.getBoolean("stopped_by_user", false);
    }

    void setStoppedByUser(boolean stopped) {
        prefs.edit().putBoolean("stopped_by_user", stopped).commit();
    }
}
