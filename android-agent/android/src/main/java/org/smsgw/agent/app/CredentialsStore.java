package org.smsgw.agent.app;

import android.content.Context;
import android.content.SharedPreferences;
import org.smsgw.agent.core.Credentials;

/**
 * The pairing's result and the optional CA certificate, in the app's private preferences
 * (not backed up: allowBackup is off, the token must not leave the phone).
 */
final class CredentialsStore {
    private static final String FILE = "agent";
    private final SharedPreferences prefs;

    CredentialsStore(Context context) {
        prefs = context.getSharedPreferences(FILE, Context.MODE_PRIVATE);
    }

    Credentials credentials() {
        String json = prefs.getString("credentials", null);
        return json == null ? null : Credentials.fromJson(json);
    }

    /** commit(), not apply(): the service may be started right after, in another thread. */
    void save(Credentials credentials) {
        prefs.edit().putString("credentials", credentials.toJson()).remove("stopped_reason").commit();
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
