package org.smsgw.agent.core;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The outbox in three SQLite tables (and the inbox's, beside them). The same statements run on the phone and in the JVM tests. */
public final class SqlOutboxStore implements OutboxStore, SendRecord.Store {
    /** The version of {@link #SCHEMA}: the app's SQLiteOpenHelper version. */
    public static final int SCHEMA_VERSION = 6;

    /** Version 5 (protocol 7): the send record, one row an SMS handed over in the last hours. */
    static final String RECORD_TABLE = "CREATE TABLE IF NOT EXISTS send_record ("
            + " message_id TEXT PRIMARY KEY NOT NULL,"
            + " state TEXT NOT NULL,"
            + " parts INTEGER NOT NULL,"
            + " parts_sent INTEGER NOT NULL,"
            + " parts_failed INTEGER NOT NULL,"
            + " parts_delivered INTEGER NOT NULL,"
            + " accepted_at INTEGER NOT NULL,"
            + " sent_at INTEGER NOT NULL DEFAULT 0,"
            + " delivered_at INTEGER NOT NULL DEFAULT 0,"
            + " failed_at INTEGER NOT NULL DEFAULT 0,"
            + " error_code TEXT,"
            + " error_message TEXT,"
            + " not_sent INTEGER NOT NULL DEFAULT 0,"
            + " sim INTEGER NOT NULL DEFAULT 0)";
    /** Since when the record is complete: one row, written when the record begins. */
    static final String RECORD_SINCE_TABLE = "CREATE TABLE IF NOT EXISTS send_record_since (id INTEGER PRIMARY KEY CHECK (id = 1), since INTEGER NOT NULL)";

    /** The latest schema, for a new database. */
    public static final String[] SCHEMA = {
        "CREATE TABLE IF NOT EXISTS outbox_entry ("
            + " message_id TEXT PRIMARY KEY NOT NULL,"
            + " seq INTEGER NOT NULL UNIQUE,"
            + " recipient TEXT NOT NULL,"
            + " body TEXT NOT NULL,"
            + " traceparent TEXT,"
            + " expires_at INTEGER NOT NULL DEFAULT 0,"
            + " sim INTEGER NOT NULL DEFAULT 0,"
            + " sent_sim INTEGER NOT NULL DEFAULT 0,"
            + " state TEXT NOT NULL CHECK (state IN ('accepted', 'sending', 'sent', 'delivered', 'failed')),"
            + " parts INTEGER NOT NULL DEFAULT 0,"
            + " parts_sent TEXT NOT NULL DEFAULT '',"
            + " parts_delivered TEXT NOT NULL DEFAULT '',"
            + " handed_at INTEGER NOT NULL DEFAULT 0,"
            + " handed_boot TEXT,"
            + " delivery_wait_until INTEGER NOT NULL DEFAULT 0,"
            + " accepted_at INTEGER NOT NULL,"
            + " updated_at INTEGER NOT NULL)",
        "CREATE TABLE IF NOT EXISTS outbox_report ("
            + " message_id TEXT NOT NULL,"
            + " position INTEGER NOT NULL,"
            + " status TEXT NOT NULL CHECK (status IN ('sent', 'delivered', 'failed')),"
            + " at INTEGER NOT NULL,"
            + " error_code TEXT,"
            + " error_message TEXT,"
            + " not_sent INTEGER NOT NULL DEFAULT 0,"
            + " PRIMARY KEY (message_id, status))",
        // rowid orders the done ids for trimming.
        "CREATE TABLE IF NOT EXISTS outbox_done (message_id TEXT PRIMARY KEY NOT NULL)",
        // Version 3: received SMS until received_ack (Inbox).
        Inbox.TABLE,
        RECORD_TABLE,
        RECORD_SINCE_TABLE,
    };

    /**
     * What brings a database of version {@code i + 1} to version {@code i + 2}. Rows of version 1
     * get no expiry (0) and reports without not_sent, which is what they meant.
     */
    public static final String[][] UPGRADES = {
        {
            "ALTER TABLE outbox_entry ADD COLUMN expires_at INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE outbox_report ADD COLUMN not_sent INTEGER NOT NULL DEFAULT 0",
        },
        // 2 -> 3 (protocol 3): the inbox, empty.
        {
            Inbox.TABLE_V3,
        },
        // 3 -> 4 (protocol 4): the SIM asked for and the one sent through; 0 (the default SIM, unknown) for older rows.
        {
            "ALTER TABLE outbox_entry ADD COLUMN sim INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE outbox_entry ADD COLUMN sent_sim INTEGER NOT NULL DEFAULT 0",
        },
        // 4 -> 5 (protocol 7): the send record, empty, complete from the upgrade on.
        {
            RECORD_TABLE,
            RECORD_SINCE_TABLE,
        },
        // 5 -> 6 (protocol 8): the keyword matched before a received SMS was sealed; none for older rows.
        Inbox.KEYWORD_COLUMNS,
    };

    private static final String ENTRY_COLUMNS = "message_id, seq, recipient, body, traceparent, state, parts, parts_sent,"
            + " parts_delivered, handed_at, handed_boot, delivery_wait_until, accepted_at, updated_at, expires_at, sim, sent_sim";

    private final SqlDb db;

    public SqlOutboxStore(SqlDb db) {
        this.db = db;
    }

    /** Creates the tables of a new database (the JVM's; the app's SQLiteOpenHelper runs SCHEMA itself). */
    public void createSchema() {
        for (String statement : SCHEMA) db.execute(statement);
    }

    /** Brings a database of schema {@code fromVersion} to {@link #SCHEMA_VERSION} (the app's onUpgrade does the same). */
    public void upgrade(int fromVersion) {
        for (int v = fromVersion; v < SCHEMA_VERSION; v++) {
            for (String statement : UPGRADES[v - 1]) db.execute(statement);
        }
    }

    @Override
    public List<OutboxEntry> loadEntries() {
        List<OutboxEntry> entries = new ArrayList<OutboxEntry>();
        Map<String, OutboxEntry> byId = new HashMap<String, OutboxEntry>();
        for (Object[] row : db.query("SELECT " + ENTRY_COLUMNS + " FROM outbox_entry ORDER BY seq")) {
            OutboxEntry e = new OutboxEntry();
            e.messageId = (String) row[0];
            e.seq = (Long) row[1];
            e.to = (String) row[2];
            e.text = (String) row[3];
            e.traceparent = (String) row[4];
            e.state = (String) row[5];
            e.parts = ((Long) row[6]).intValue();
            e.partsSent = (String) row[7];
            e.partsDelivered = (String) row[8];
            e.handedAt = (Long) row[9];
            e.handedBoot = (String) row[10];
            e.deliveryWaitUntil = (Long) row[11];
            e.acceptedAt = (Long) row[12];
            e.updatedAt = (Long) row[13];
            e.expiresAt = (Long) row[14];
            e.sim = ((Long) row[15]).intValue();
            e.sentSim = ((Long) row[16]).intValue();
            entries.add(e);
            byId.put(e.messageId, e);
        }
        for (Object[] row : db.query(
                "SELECT message_id, status, at, error_code, error_message, not_sent FROM outbox_report ORDER BY message_id, position")) {
            OutboxEntry e = byId.get((String) row[0]);
            if (e == null) continue;
            SmsError error = row[3] == null ? null : new SmsError((String) row[3], row[4] == null ? "" : (String) row[4]);
            e.reports.add(new OutboxEntry.PendingReport((String) row[1], (Long) row[2], error, ((Long) row[5]) != 0));
        }
        return entries;
    }

    @Override
    public List<String> loadDone() {
        List<String> ids = new ArrayList<String>();
        for (Object[] row : db.query("SELECT message_id FROM outbox_done ORDER BY rowid")) ids.add((String) row[0]);
        return ids;
    }

    @Override
    public void insert(final OutboxEntry e) {
        db.transaction(new Runnable() {
            @Override
            public void run() {
                db.execute("INSERT INTO outbox_entry (" + ENTRY_COLUMNS + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        e.messageId, e.seq, e.to, e.text, e.traceparent, e.state, (long) e.parts, e.partsSent,
                        e.partsDelivered, e.handedAt, e.handedBoot, e.deliveryWaitUntil, e.acceptedAt, e.updatedAt, e.expiresAt,
                        (long) e.sim, (long) e.sentSim);
                writeReports(e);
            }
        });
    }

    @Override
    public void update(final OutboxEntry e) {
        db.transaction(new Runnable() {
            @Override
            public void run() {
                db.execute("UPDATE outbox_entry SET state = ?, parts = ?, parts_sent = ?, parts_delivered = ?, handed_at = ?,"
                        + " handed_boot = ?, delivery_wait_until = ?, updated_at = ?, sent_sim = ? WHERE message_id = ?",
                        e.state, (long) e.parts, e.partsSent, e.partsDelivered, e.handedAt, e.handedBoot,
                        e.deliveryWaitUntil, e.updatedAt, (long) e.sentSim, e.messageId);
                db.execute("DELETE FROM outbox_report WHERE message_id = ?", e.messageId);
                writeReports(e);
            }
        });
    }

    @Override
    public void retire(final String messageId) {
        db.transaction(new Runnable() {
            @Override
            public void run() {
                db.execute("DELETE FROM outbox_report WHERE message_id = ?", messageId);
                db.execute("DELETE FROM outbox_entry WHERE message_id = ?", messageId);
                db.execute("INSERT OR IGNORE INTO outbox_done (message_id) VALUES (?)", messageId);
            }
        });
    }

    @Override
    public void trimDone(int keep) {
        db.execute("DELETE FROM outbox_done WHERE rowid NOT IN (SELECT rowid FROM outbox_done ORDER BY rowid DESC LIMIT ?)",
                (long) keep);
    }

    private void writeReports(OutboxEntry e) {
        long position = 0;
        for (OutboxEntry.PendingReport r : e.reports) {
            db.execute("INSERT INTO outbox_report (message_id, position, status, at, error_code, error_message, not_sent)"
                    + " VALUES (?, ?, ?, ?, ?, ?, ?)",
                    e.messageId, position++, r.status, r.at, r.error == null ? null : r.error.code,
                    r.error == null ? null : r.error.message, r.notSent ? 1L : 0L);
        }
    }

    @Override
    public List<RecordEntry> loadRecord() {
        List<RecordEntry> out = new ArrayList<RecordEntry>();
        for (Object[] row : db.query("SELECT message_id, state, parts, parts_sent, parts_failed, parts_delivered, accepted_at, sent_at,"
                + " delivered_at, failed_at, error_code, error_message, not_sent, sim FROM send_record ORDER BY accepted_at")) {
            RecordEntry e = new RecordEntry();
            e.messageId = (String) row[0];
            e.state = (String) row[1];
            e.parts = ((Long) row[2]).intValue();
            e.partsSent = ((Long) row[3]).intValue();
            e.partsFailed = ((Long) row[4]).intValue();
            e.partsDelivered = ((Long) row[5]).intValue();
            e.acceptedAt = (Long) row[6];
            e.sentAt = (Long) row[7];
            e.deliveredAt = (Long) row[8];
            e.failedAt = (Long) row[9];
            e.error = row[10] == null ? null : new SmsError((String) row[10], row[11] == null ? "" : (String) row[11]);
            e.notSent = ((Long) row[12]) != 0;
            e.sim = ((Long) row[13]).intValue();
            out.add(e);
        }
        return out;
    }

    @Override
    public long recordSince(long now) {
        db.execute("INSERT OR IGNORE INTO send_record_since (id, since) VALUES (1, ?)", now);
        return (Long) db.query("SELECT since FROM send_record_since WHERE id = 1").get(0)[0];
    }

    @Override
    public void upsertRecord(RecordEntry e) {
        db.execute("INSERT OR REPLACE INTO send_record (message_id, state, parts, parts_sent, parts_failed, parts_delivered, accepted_at,"
                + " sent_at, delivered_at, failed_at, error_code, error_message, not_sent, sim) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                e.messageId, e.state, (long) e.parts, (long) e.partsSent, (long) e.partsFailed, (long) e.partsDelivered, e.acceptedAt,
                e.sentAt, e.deliveredAt, e.failedAt, e.error == null ? null : e.error.code, e.error == null ? null : e.error.message,
                e.notSent ? 1L : 0L, (long) e.sim);
    }

    @Override
    public void pruneRecord(long before) {
        db.execute("DELETE FROM send_record WHERE accepted_at < ?", before);
    }
}
