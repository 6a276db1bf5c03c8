package org.smsgw.agent.core;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The durable record of what the phone did with each SMS it was handed (PROTOCOL.md, version 7),
 * kept beside the outbox for {@link #KEEP_MS} after each hand-over, also once the outbox has
 * forgotten the SMS. The outbox tells it of every change ({@link #update}); it writes before it
 * returns. It knows since when it is complete: a new record starts now, not before.
 */
public final class SendRecord {
    /** Where the record lives: a table of the outbox's database (SqlOutboxStore). Every call is durable when it returns. */
    public interface Store {
        List<RecordEntry> loadRecord();

        /** When the record began; a record that has none begins at {@code now} (written). */
        long recordSince(long now);

        void upsertRecord(RecordEntry entry);

        /** Forgets the SMS handed over before {@code before}. */
        void pruneRecord(long before);
    }

    public static final long KEEP_MS = 6L * 60 * 60 * 1000;

    private final Store store;
    private final Clock clock;
    private final Map<String, RecordEntry> entries = new HashMap<String, RecordEntry>();
    private final long since;

    private SendRecord(Store store, Clock clock) {
        this.store = store;
        this.clock = clock;
        this.since = store.recordSince(clock.now());
        store.pruneRecord(clock.now() - KEEP_MS);
        for (RecordEntry e : store.loadRecord()) entries.put(e.messageId, e);
    }

    public static SendRecord open(Store store, Clock clock) {
        return new SendRecord(store, clock);
    }

    /** The time from which the record is complete: its start, or the oldest hand-over it keeps. */
    public synchronized long coversFrom() {
        return Math.max(since, clock.now() - KEEP_MS);
    }

    /** The kept entries, oldest hand-over first. */
    public synchronized List<RecordEntry> list() {
        long from = coversFrom();
        List<RecordEntry> out = new ArrayList<RecordEntry>();
        for (RecordEntry e : entries.values()) {
            if (e.acceptedAt >= from) out.add(e.copy());
        }
        Collections.sort(out, new Comparator<RecordEntry>() {
            @Override
            public int compare(RecordEntry a, RecordEntry b) {
                return a.acceptedAt < b.acceptedAt ? -1 : a.acceptedAt == b.acceptedAt ? a.messageId.compareTo(b.messageId) : 1;
            }
        });
        return out;
    }

    public synchronized RecordEntry get(String messageId) {
        RecordEntry e = entries.get(messageId);
        return e == null ? null : e.copy();
    }

    /** The outbox wrote this entry: the record follows it. */
    public synchronized void update(OutboxEntry entry) {
        RecordEntry next = derive(entries.get(entry.messageId), entry);
        store.upsertRecord(next);
        entries.put(next.messageId, next);
    }

    /** Forgets what is older than the record keeps (run with the outbox's sweep). */
    public synchronized void prune() {
        long before = clock.now() - KEEP_MS;
        store.pruneRecord(before);
        for (RecordEntry e : new ArrayList<RecordEntry>(entries.values())) {
            if (e.acceptedAt < before) entries.remove(e.messageId);
        }
    }

    /**
     * The record entry of an outbox entry: its state, its parts counted from what Android said of
     * each, and each step's time taken from the report it made (kept once the report is gone).
     */
    static RecordEntry derive(RecordEntry previous, OutboxEntry u) {
        RecordEntry r = previous == null ? new RecordEntry() : previous.copy();
        r.messageId = u.messageId;
        r.state = u.state;
        r.acceptedAt = u.acceptedAt;
        r.parts = Math.max(1, u.parts);
        r.partsSent = count(u.partsSent, OutboxEntry.PART_SENT) + count(u.partsSent, OutboxEntry.PART_DELIVERED);
        r.partsDelivered = count(u.partsDelivered, OutboxEntry.PART_DELIVERED);
        if (OutboxEntry.SENT.equals(u.state) || OutboxEntry.DELIVERED.equals(u.state)) r.partsSent = r.parts;
        if (OutboxEntry.DELIVERED.equals(u.state)) r.partsDelivered = r.parts;
        r.partsFailed = OutboxEntry.FAILED.equals(u.state) ? Math.max(1, r.parts - r.partsSent) : 0;
        if (u.sentSim > 0) r.sim = u.sentSim;
        for (OutboxEntry.PendingReport p : u.reports) {
            if (Report.SENT.equals(p.status) && r.sentAt == 0) r.sentAt = p.at;
            if (Report.DELIVERED.equals(p.status) && r.deliveredAt == 0) r.deliveredAt = p.at;
            if (Report.FAILED.equals(p.status) && r.failedAt == 0) {
                r.failedAt = p.at;
                r.error = p.error;
                r.notSent = p.notSent;
            }
        }
        return r;
    }

    private static int count(String s, char c) {
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) == c) n++;
        }
        return n;
    }
}
