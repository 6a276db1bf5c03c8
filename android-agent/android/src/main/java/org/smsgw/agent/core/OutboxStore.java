package org.smsgw.agent.core;

import java.util.List;

/**
 * Where the outbox lives: SQLite on the phone ({@link SqlOutboxStore} over Android's
 * SQLiteDatabase), the same SQL through JDBC on the JVM. Every call is durable when it returns.
 */
public interface OutboxStore {
    /** Every entry with its pending reports, in acceptance order. */
    List<OutboxEntry> loadEntries();

    /** Ids of finished SMS, oldest first: offered again, they are acknowledged but never sent. */
    List<String> loadDone();

    void insert(OutboxEntry entry);

    /** Writes the entry and replaces its pending reports, in one transaction. */
    void update(OutboxEntry entry);

    /** Removes the entry and records its id as done, in one transaction. */
    void retire(String messageId);

    /** Keeps only the {@code keep} most recent done ids. */
    void trimDone(int keep);
}
