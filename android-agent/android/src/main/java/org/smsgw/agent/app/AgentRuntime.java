package org.smsgw.agent.app;

import android.content.Context;
import android.os.Build;
import android.os.SystemClock;
import android.provider.Settings;
import java.io.BufferedReader;
import java.io.FileReader;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import org.smsgw.agent.core.Clock;
import org.smsgw.agent.core.Inbox;
import org.smsgw.agent.core.LogRing;
import org.smsgw.agent.core.Logger;
import org.smsgw.agent.core.Outbox;
import org.smsgw.agent.core.PassphraseStore;
import org.smsgw.agent.core.SendRecord;
import org.smsgw.agent.core.SqlOutboxStore;

/**
 * What the process shares between the service and the receivers: the credentials and one open
 * outbox per device. Android may start the process for a sent or delivery report alone, with
 * no service running: the report is still written to the outbox, and sent with the next hello.
 */
final class AgentRuntime {
    private static AgentRuntime instance;

    final Context context;
    final CredentialsStore credentials;
    /** Protocol 8: the owner's end-to-end passphrase, on this phone only (PassphraseScreen). */
    final PassphraseStore passphrase;
    /** Identifies this boot of the phone: Android's SMS callbacks do not outlive it. */
    final String bootId;
    /** The app's recent log lines, redacted, for the hub's log_request (protocol 6); the core logs through {@link #log}. */
    final LogRing ring = new LogRing();
    final Logger log = ring.tee(AndroidLog.INSTANCE, Clock.SYSTEM);
    private final Map<String, Outbox> outboxes = new HashMap<String, Outbox>();
    private final Map<String, Inbox> inboxes = new HashMap<String, Inbox>();
    /** One database (one connection) per device, shared by its outbox and inbox. */
    private final Map<String, AndroidSqlDb> databases = new HashMap<String, AndroidSqlDb>();

    private AgentRuntime(Context context) {
        this.context = context;
        this.credentials = new CredentialsStore(context);
        this.passphrase = credentials.passphraseStore();
        this.bootId = readBootId(context);
    }

    static synchronized AgentRuntime get(Context context) {
        if (instance == null) instance = new AgentRuntime(context.getApplicationContext());
        return instance;
    }

    /** The device's outbox, opened (and the restart rules applied) once per process. */
    synchronized Outbox outbox(String deviceId) {
        Outbox outbox = outboxes.get(deviceId);
        if (outbox == null) {
            SqlOutboxStore store = new SqlOutboxStore(database(deviceId));
            // Protocol 7: the send record lives in the outbox's database, beside it.
            outbox = Outbox.open(store, Clock.SYSTEM, bootId, SendRecord.open(store, Clock.SYSTEM));
            outboxes.put(deviceId, outbox);
        }
        return outbox;
    }

    /** The device's inbox of received SMS (protocol 3), in the outbox's database. */
    synchronized Inbox inbox(String deviceId) {
        Inbox inbox = inboxes.get(deviceId);
        if (inbox == null) {
            inbox = new Inbox(database(deviceId));
            inboxes.put(deviceId, inbox);
        }
        return inbox;
    }

    private AndroidSqlDb database(String deviceId) {
        AndroidSqlDb db = databases.get(deviceId);
        if (db == null) {
            db = new AndroidSqlDb(context, deviceId);
            databases.put(deviceId, db);
        }
        return db;
    }

    private static String readBootId(Context context) {
        if (Build.VERSION.SDK_INT >= 24) {
            // Settings.Global.BOOT_COUNT, API 24.
            int count = Settings.Global.getInt(context.getContentResolver(), "boot_count", -1);
            if (count >= 0) return "count:" + count;
        }
        try {
            BufferedReader reader = new BufferedReader(new FileReader("/proc/sys/kernel/random/boot_id"));
            try {
                String id = reader.readLine();
                if (id != null && !id.isEmpty()) return "id:" + id.trim();
            } finally {
                reader.close();
            }
        } catch (IOException | SecurityException e) {
            // Some builds hide it from apps: fall back on the boot time, to the minute.
        }
        long bootedAt = System.currentTimeMillis() - SystemClock.elapsedRealtime();
        return "time:" + Math.round(bootedAt / 60000.0);
    }
}
