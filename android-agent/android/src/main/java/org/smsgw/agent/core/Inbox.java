package org.smsgw.agent.core;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * The inbox of received SMS (PROTOCOL.md §3, protocol 3), a table of the outbox's database: an
 * SMS is written here (synchronous=FULL on the phone) before anything else, sent to the hub after
 * each hello and until {@code received_ack}, then deleted. Safe to use from the receiver's and
 * the service's threads at once.
 */
public final class Inbox {
    /** Part of {@link SqlOutboxStore#SCHEMA} since schema version 3. */
    static final String TABLE = "CREATE TABLE IF NOT EXISTS inbox_entry ("
            + " received_id TEXT PRIMARY KEY NOT NULL,"
            + " sender TEXT NOT NULL,"
            + " body TEXT NOT NULL,"
            + " sim INTEGER NOT NULL DEFAULT 0,"
            + " received_at INTEGER NOT NULL)";

    /** Told (on any thread) when an SMS was written: the service sends it. */
    public interface Listener {
        void onReceived(ReceivedSms sms);
    }

    private final SqlDb db;
    private volatile Listener listener;

    public Inbox(SqlDb db) {
        this.db = db;
    }

    public void setListener(Listener listener) {
        this.listener = listener;
    }

    /** Gives the SMS its received_id and writes it; returns once it is on disk. */
    public synchronized ReceivedSms receive(String from, String text, int sim, long receivedAt) {
        ReceivedSms sms = new ReceivedSms(UUID.randomUUID().toString(), from, text, sim >= 1 && sim <= 8 ? sim : 0, receivedAt);
        db.execute("INSERT INTO inbox_entry (received_id, sender, body, sim, received_at) VALUES (?, ?, ?, ?, ?)",
                sms.receivedId, sms.from, sms.text, Long.valueOf(sms.sim), Long.valueOf(sms.receivedAt));
        Listener l = listener;
        if (l != null) l.onReceived(sms);
        return sms;
    }

    /** The SMS the hub has not acknowledged, oldest first. */
    public synchronized List<ReceivedSms> pending() {
        List<ReceivedSms> out = new ArrayList<ReceivedSms>();
        for (Object[] row : db.query("SELECT received_id, sender, body, sim, received_at FROM inbox_entry ORDER BY received_at, rowid")) {
            out.add(new ReceivedSms((String) row[0], (String) row[1], (String) row[2], ((Long) row[3]).intValue(), (Long) row[4]));
        }
        return out;
    }

    /** The hub has recorded it: forget it (an id acknowledged twice changes nothing). */
    public synchronized void ack(String receivedId) {
        db.execute("DELETE FROM inbox_entry WHERE received_id = ?", receivedId);
    }
}
