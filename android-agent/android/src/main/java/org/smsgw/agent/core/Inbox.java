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
    /** The table as schema version 3 made it (the upgrade from version 2). */
    static final String TABLE_V3 = "CREATE TABLE IF NOT EXISTS inbox_entry ("
            + " received_id TEXT PRIMARY KEY NOT NULL,"
            + " sender TEXT NOT NULL,"
            + " body TEXT NOT NULL,"
            + " sim INTEGER NOT NULL DEFAULT 0,"
            + " received_at INTEGER NOT NULL)";
    /** Schema version 6 (protocol 8): the keyword matched on the phone before the text was sealed. */
    static final String[] KEYWORD_COLUMNS = {
        "ALTER TABLE inbox_entry ADD COLUMN keyword_action TEXT",
        "ALTER TABLE inbox_entry ADD COLUMN keyword TEXT",
    };
    /** Part of {@link SqlOutboxStore#SCHEMA}: the latest table. */
    static final String TABLE = "CREATE TABLE IF NOT EXISTS inbox_entry ("
            + " received_id TEXT PRIMARY KEY NOT NULL,"
            + " sender TEXT NOT NULL,"
            + " body TEXT NOT NULL,"
            + " sim INTEGER NOT NULL DEFAULT 0,"
            + " received_at INTEGER NOT NULL,"
            + " keyword_action TEXT,"
            + " keyword TEXT)";

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

    /** Gives the SMS its received_id and writes it as it came; returns once it is on disk. */
    public ReceivedSms receive(String from, String text, int sim, long receivedAt) {
        return receive(from, text, sim, receivedAt, null);
    }

    /**
     * Gives the SMS its received_id and writes it; returns once it is on disk. With the owner's
     * passphrase (protocol 8) the text is sealed first and only the envelope and the keyword it
     * matched are written: the plain text is never at rest.
     */
    public ReceivedSms receive(String from, String text, int sim, long receivedAt, String passphrase) {
        // Sealed outside the lock: scrypt takes a few hundred milliseconds on a phone.
        EncryptedTexts.Sealed sealed = EncryptedTexts.forReceiving(text, passphrase);
        return write(new ReceivedSms(UUID.randomUUID().toString(), from, sealed.text, sim >= 1 && sim <= 8 ? sim : 0, receivedAt,
                sealed.keywordAction, sealed.keyword));
    }

    private synchronized ReceivedSms write(ReceivedSms sms) {
        db.execute("INSERT INTO inbox_entry (received_id, sender, body, sim, received_at, keyword_action, keyword) VALUES (?, ?, ?, ?, ?, ?, ?)",
                sms.receivedId, sms.from, sms.text, Long.valueOf(sms.sim), Long.valueOf(sms.receivedAt), sms.keywordAction, sms.keyword);
        Listener l = listener;
        if (l != null) l.onReceived(sms);
        return sms;
    }

    /** The SMS the hub has not acknowledged, oldest first. */
    public synchronized List<ReceivedSms> pending() {
        List<ReceivedSms> out = new ArrayList<ReceivedSms>();
        for (Object[] row : db.query("SELECT received_id, sender, body, sim, received_at, keyword_action, keyword FROM inbox_entry"
                + " ORDER BY received_at, rowid")) {
            out.add(new ReceivedSms((String) row[0], (String) row[1], (String) row[2], ((Long) row[3]).intValue(), (Long) row[4],
                    (String) row[5], (String) row[6]));
        }
        return out;
    }

    /** The hub has recorded it: forget it (an id acknowledged twice changes nothing). */
    public synchronized void ack(String receivedId) {
        db.execute("DELETE FROM inbox_entry WHERE received_id = ?", receivedId);
    }
}
