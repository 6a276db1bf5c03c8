package org.smsgw.agent.core;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The durable outbox of PROTOCOL.md §3, with the Node agent's semantics (src/outbox.ts): each
 * entry moves accepted -> sending -> sent -> delivered (or failed), written to the store before
 * the next step; an id once accepted is never sent again; reports stay until report_ack.
 *
 * <p>Android adds parts and callbacks that outlive the process: an SMS is {@code sent} when every
 * part is, {@code delivered} when every part's delivery report says so, {@code failed} at the
 * first part that fails. Once its parts are handed to Android's telephony service, the sent and
 * delivery PendingIntents come back even if this process died in between, so a restart keeps
 * waiting for them instead of failing the SMS; only a reboot of the phone loses them.
 *
 * <p>Thread-safe: the hub connection calls it from its thread, the receivers of Android's
 * callbacks from the main thread.
 */
public final class Outbox {
    /** Told of every report once it is in the store, and of every change (the notification's counts). */
    public interface Listener {
        void onReport(Report report);

        void onChanged();
    }

    /** Ids of finished SMS kept for de-duplication; the hub re-offers only within a lease or after a reconnect. */
    public static final int DONE_LIMIT = 10000;
    /** A handed-over SMS without Android's sent report after this long is failed rather than left in limbo. */
    public static final long SENDING_TIMEOUT_MS = 30L * 60 * 1000;
    /** How long a sent SMS waits for its delivery reports (SMSCs keep trying for a few days at most). */
    public static final long DELIVERY_WAIT_MS = 7L * 24 * 60 * 60 * 1000;

    static final SmsError INTERRUPTED = new SmsError(SmsError.DEVICE_ERROR,
            "the agent stopped while sending this SMS; it may or may not have left the phone, so it is not sent again");
    static final SmsError REBOOTED = new SmsError(SmsError.DEVICE_ERROR,
            "the phone restarted before Android reported this SMS sent; it may or may not have left the phone");
    static final SmsError NO_SENT_REPORT = new SmsError(SmsError.DEVICE_ERROR,
            "Android did not report this SMS sent within 30 minutes");
    static final SmsError EXPIRED = new SmsError(SmsError.EXPIRED,
            "the SMS expired before the phone began to send it; it was not sent");

    private final OutboxStore store;
    private final Clock clock;
    private final String bootId;
    private final Map<String, OutboxEntry> entries = new LinkedHashMap<String, OutboxEntry>();
    private final Set<String> done = new HashSet<String>();
    private long nextSeq = 1;
    private volatile Listener listener;
    /** The send record (protocol 7), told of every change; null: none kept. */
    private SendRecord record;
    /** Ids the start-up rules failed (logged by the caller). */
    private final List<String> failedAtOpen = new ArrayList<String>();
    /** Ids the start-up rules found {@code accepted} past their expiry, now failed as EXPIRED. */
    private final List<String> expiredAtOpen = new ArrayList<String>();

    private Outbox(OutboxStore store, Clock clock, String bootId) {
        this.store = store;
        this.clock = clock;
        this.bootId = bootId;
    }

    /**
     * Loads the outbox and applies the restart rules: an entry left {@code sending} before its
     * parts reached Android is failed with DEVICE_ERROR (sending it again could send it twice);
     * one handed over during an earlier boot too; {@code accepted} ones past their expiry fail
     * with EXPIRED and not_sent; other {@code accepted} ones stay to be sent.
     */
    public static Outbox open(OutboxStore store, Clock clock, String bootId) {
        return open(store, clock, bootId, null);
    }

    /** The same, keeping {@code record} (protocol 7) in step from the restart rules on; null: none. */
    public static Outbox open(OutboxStore store, Clock clock, String bootId, SendRecord record) {
        Outbox outbox = new Outbox(store, clock, bootId);
        outbox.record = record;
        outbox.load();
        return outbox;
    }

    public void setListener(Listener listener) {
        this.listener = listener;
    }

    /** Keeps {@code record} in step with every change from now on (protocol 7). */
    public synchronized void useRecord(SendRecord record) {
        this.record = record;
    }

    public synchronized SendRecord record() {
        return record;
    }

    public synchronized List<String> failedAtOpen() {
        return new ArrayList<String>(failedAtOpen);
    }

    public synchronized List<String> expiredAtOpen() {
        return new ArrayList<String>(expiredAtOpen);
    }

    /** True when this SMS is in the outbox or finished earlier: it must not be sent again. */
    public synchronized boolean has(String messageId) {
        return entries.containsKey(messageId) || done.contains(messageId);
    }

    public synchronized OutboxEntry get(String messageId) {
        OutboxEntry e = entries.get(messageId);
        return e == null ? null : e.copy();
    }

    /** Every entry still in the outbox, in acceptance order. */
    public synchronized List<OutboxEntry> list() {
        List<OutboxEntry> out = new ArrayList<OutboxEntry>();
        for (OutboxEntry e : entries.values()) out.add(e.copy());
        return out;
    }

    /** Entries still {@code accepted}, in acceptance order: the ones to hand to Android. */
    public synchronized List<Sms> toSend() {
        List<Sms> out = new ArrayList<Sms>();
        for (OutboxEntry e : entries.values()) {
            if (OutboxEntry.ACCEPTED.equals(e.state)) out.add(new Sms(e.messageId, e.to, e.text, e.traceparent, e.expiresAt, e.sim));
        }
        return out;
    }

    /** SMS accepted or being sent: the queue the notification shows. */
    public synchronized int queued() {
        int n = 0;
        for (OutboxEntry e : entries.values()) {
            if (OutboxEntry.ACCEPTED.equals(e.state) || OutboxEntry.SENDING.equals(e.state)) n++;
        }
        return n;
    }

    /**
     * Writes a new SMS as {@code accepted}. Returns false, writing nothing, when the id is known
     * (in the outbox or finished): the caller acknowledges it again but must not send it.
     */
    public synchronized boolean accept(Sms sms) {
        if (has(sms.messageId)) return false;
        OutboxEntry e = new OutboxEntry();
        e.messageId = sms.messageId;
        e.seq = nextSeq;
        e.to = sms.to;
        e.text = sms.text;
        e.traceparent = sms.traceparent;
        e.expiresAt = sms.expiresAt;
        e.sim = sms.sim;
        e.state = OutboxEntry.ACCEPTED;
        e.acceptedAt = clock.now();
        e.updatedAt = e.acceptedAt;
        // The record first: a crash in between leaves an SMS the record lists and the outbox lacks,
        // which the hub leaves alone; the other way round the hub could give it to another phone.
        if (record != null) record.update(e);
        store.insert(e);
        entries.put(e.messageId, e);
        nextSeq++;
        changed();
        return true;
    }

    /**
     * Called right before an {@code accepted} SMS would begin to send: once its expiry has come,
     * it fails with EXPIRED and not_sent instead, and this returns true (the caller must not send).
     */
    public synchronized boolean dropIfExpired(String messageId) {
        OutboxEntry e = entries.get(messageId);
        if (e == null || !OutboxEntry.ACCEPTED.equals(e.state) || !Sms.expired(e.expiresAt, clock.now())) return false;
        OutboxEntry u = e.copy();
        toFailed(u, EXPIRED, true);
        write(u);
        return true;
    }

    /** Before the parts go to Android: after a crash from here on, the SMS is never sent again. */
    public synchronized void markSending(String messageId, int parts) {
        markSending(messageId, parts, 0);
    }

    /** The same, with the SIM slot the parts go through (0 when unknown), which the reports then name. */
    public synchronized void markSending(String messageId, int parts, int sentSim) {
        OutboxEntry u = require(messageId, OutboxEntry.ACCEPTED);
        u.state = OutboxEntry.SENDING;
        u.parts = parts;
        u.sentSim = sentSim;
        u.partsSent = repeat(OutboxEntry.PART_WAITING, parts);
        u.partsDelivered = repeat(OutboxEntry.PART_WAITING, parts);
        write(u);
    }

    /** Android's telephony service holds the parts: its callbacks outlive this process. */
    public synchronized void markHandedOver(String messageId) {
        OutboxEntry e = entries.get(messageId);
        if (e == null) return; // already finished and acknowledged: nothing to remember
        OutboxEntry u = e.copy();
        u.handedAt = clock.now();
        u.handedBoot = bootId;
        write(u);
    }

    /**
     * An {@code accepted} SMS the phone will not even try (its SIM slot is absent, protocol 4):
     * failed with not_sent, since nothing of it left the phone.
     */
    public synchronized void refuse(String messageId, SmsError error) {
        OutboxEntry e = entries.get(messageId);
        if (e == null || !OutboxEntry.ACCEPTED.equals(e.state)) return;
        OutboxEntry u = e.copy();
        toFailed(u, error, true);
        write(u);
    }

    /** The phone refused the SMS before it reached the network. */
    public synchronized void fail(String messageId, SmsError error) {
        OutboxEntry e = entries.get(messageId);
        if (e == null || !isOpen(e)) return;
        OutboxEntry u = e.copy();
        toFailed(u, error);
        write(u);
    }

    /** Android's sent report of one part: {@code error} null when it left the phone. */
    public synchronized void partSent(String messageId, int part, SmsError error) {
        partSent(messageId, part, error, false);
    }

    /**
     * Android's sent report of one part. {@code refusedBeforeSending}: Android refused this part
     * before it reached the network; with no part of the SMS sent before it, the failure is
     * reported not_sent (nothing of the SMS left the phone).
     */
    public synchronized void partSent(String messageId, int part, SmsError error, boolean refusedBeforeSending) {
        OutboxEntry e = entries.get(messageId);
        // Unknown (finished and forgotten), a part out of range, or a late report after the SMS
        // ended: nothing left to decide.
        if (e == null || part < 0 || part >= e.parts || !OutboxEntry.SENDING.equals(e.state)) return;
        OutboxEntry u = e.copy();
        if (error != null) {
            toFailed(u, error, refusedBeforeSending && u.partsSent.indexOf(OutboxEntry.PART_SENT) < 0);
        } else {
            u.partsSent = with(u.partsSent, part, OutboxEntry.PART_SENT);
            if (all(u.partsSent, OutboxEntry.PART_SENT)) {
                long now = clock.now();
                u.state = OutboxEntry.SENT;
                u.deliveryWaitUntil = now + DELIVERY_WAIT_MS;
                u.reports.add(new OutboxEntry.PendingReport(Report.SENT, now, null));
                // Delivery reports may have come before the last sent report.
                if (all(u.partsDelivered, OutboxEntry.PART_DELIVERED)) toDelivered(u);
            }
        }
        write(u);
    }

    /** The delivery report of one part, read from its TP-Status. */
    public synchronized void partDelivered(String messageId, int part, Delivery delivery) {
        OutboxEntry e = entries.get(messageId);
        if (e == null || part < 0 || part >= e.parts || !isOpen(e) || OutboxEntry.ACCEPTED.equals(e.state)) return;
        OutboxEntry u = e.copy();
        switch (delivery.kind) {
            case PENDING:
                if (u.partsDelivered.charAt(part) == OutboxEntry.PART_DELIVERED) return;
                u.partsDelivered = with(u.partsDelivered, part, OutboxEntry.PART_PENDING);
                break;
            case FAILED:
                toFailed(u, delivery.error);
                break;
            default:
                u.partsDelivered = with(u.partsDelivered, part, OutboxEntry.PART_DELIVERED);
                if (OutboxEntry.SENT.equals(u.state) && all(u.partsDelivered, OutboxEntry.PART_DELIVERED)) toDelivered(u);
                break;
        }
        write(u);
    }

    /**
     * The hub recorded this report: forget it. An entry in its final state with nothing left to
     * report leaves the outbox, and its id is kept so that a re-offer is never sent.
     */
    public synchronized void ackReport(String messageId, String status) {
        OutboxEntry e = entries.get(messageId);
        // Acks are idempotent: a second one for a forgotten report changes nothing.
        if (e == null || !e.hasReport(status)) return;
        OutboxEntry u = e.copy();
        List<OutboxEntry.PendingReport> kept = new ArrayList<OutboxEntry.PendingReport>();
        for (OutboxEntry.PendingReport r : u.reports) {
            if (!r.status.equals(status)) kept.add(r);
        }
        u.reports = kept;
        u.updatedAt = clock.now();
        if (isFinished(u)) {
            retire(u.messageId);
        } else {
            store.update(u);
            entries.put(u.messageId, u);
        }
        changed();
    }

    /** Every report the hub has not acknowledged, in acceptance order then in order of events. */
    public synchronized List<Report> pendingReports() {
        List<Report> out = new ArrayList<Report>();
        for (OutboxEntry e : entries.values()) {
            for (OutboxEntry.PendingReport r : e.reports) out.add(e.reportOf(r));
        }
        return out;
    }

    /**
     * Ends what waits too long (run every minute): an SMS handed to Android that got no sent
     * report within {@link #SENDING_TIMEOUT_MS} fails; a sent one whose delivery reports did not
     * all come within {@link #DELIVERY_WAIT_MS} leaves the outbox as {@code sent}.
     */
    public synchronized void sweep() {
        long now = clock.now();
        if (record != null) record.prune();
        for (OutboxEntry e : new ArrayList<OutboxEntry>(entries.values())) {
            if (OutboxEntry.SENDING.equals(e.state) && e.handedAt > 0 && now - e.handedAt >= SENDING_TIMEOUT_MS) {
                OutboxEntry u = e.copy();
                toFailed(u, NO_SENT_REPORT);
                write(u);
            } else if (isFinished(e)) {
                retire(e.messageId);
                changed();
            }
        }
    }

    private void load() {
        for (OutboxEntry e : store.loadEntries()) {
            entries.put(e.messageId, e);
            nextSeq = Math.max(nextSeq, e.seq + 1);
        }
        List<String> ids = store.loadDone();
        if (ids.size() > 2 * DONE_LIMIT) {
            store.trimDone(DONE_LIMIT);
            ids = ids.subList(ids.size() - DONE_LIMIT, ids.size());
        }
        done.addAll(ids);
        for (OutboxEntry e : new ArrayList<OutboxEntry>(entries.values())) {
            boolean sameBoot = bootId.equals(e.handedBoot);
            if (OutboxEntry.ACCEPTED.equals(e.state) && Sms.expired(e.expiresAt, clock.now())) {
                OutboxEntry u = e.copy();
                toFailed(u, EXPIRED, true);
                write(u);
                expiredAtOpen.add(e.messageId);
            } else if (OutboxEntry.SENDING.equals(e.state) && (e.handedAt == 0 || !sameBoot)) {
                OutboxEntry u = e.copy();
                toFailed(u, e.handedAt == 0 ? INTERRUPTED : REBOOTED);
                write(u);
                failedAtOpen.add(e.messageId);
            } else if (OutboxEntry.SENT.equals(e.state) && !sameBoot && e.deliveryWaitUntil > 0) {
                // The delivery reports of an earlier boot never reach this one.
                OutboxEntry u = e.copy();
                u.deliveryWaitUntil = 0;
                if (isFinished(u)) {
                    retire(u.messageId);
                } else {
                    store.update(u);
                    entries.put(u.messageId, u);
                }
            } else if (isFinished(e)) {
                // Left over by a crash between the last report_ack and the retirement.
                retire(e.messageId);
            }
        }
    }

    private boolean isFinished(OutboxEntry e) {
        boolean fin = OutboxEntry.DELIVERED.equals(e.state) || OutboxEntry.FAILED.equals(e.state)
                || (OutboxEntry.SENT.equals(e.state) && e.deliveryWaitUntil <= clock.now());
        return fin && e.reports.isEmpty();
    }

    private static boolean isOpen(OutboxEntry e) {
        return !OutboxEntry.DELIVERED.equals(e.state) && !OutboxEntry.FAILED.equals(e.state);
    }

    private void toFailed(OutboxEntry u, SmsError error) {
        toFailed(u, error, false);
    }

    private void toFailed(OutboxEntry u, SmsError error, boolean notSent) {
        u.state = OutboxEntry.FAILED;
        u.reports.add(new OutboxEntry.PendingReport(Report.FAILED, clock.now(), error, notSent));
    }

    private void toDelivered(OutboxEntry u) {
        u.state = OutboxEntry.DELIVERED;
        u.reports.add(new OutboxEntry.PendingReport(Report.DELIVERED, clock.now(), null));
    }

    /** Writes the entry, then tells the listener of the reports it gained. */
    private void write(OutboxEntry u) {
        OutboxEntry before = entries.get(u.messageId);
        u.updatedAt = clock.now();
        store.update(u);
        entries.put(u.messageId, u);
        if (record != null) record.update(u);
        Listener l = listener;
        if (l != null) {
            for (OutboxEntry.PendingReport r : u.reports) {
                if (before == null || !before.hasReport(r.status)) l.onReport(u.reportOf(r));
            }
        }
        changed();
    }

    private void retire(String messageId) {
        store.retire(messageId);
        done.add(messageId);
        entries.remove(messageId);
    }

    private void changed() {
        Listener l = listener;
        if (l != null) l.onChanged();
    }

    private OutboxEntry require(String messageId, String state) {
        OutboxEntry e = entries.get(messageId);
        if (e == null) throw new IllegalStateException("message " + messageId + " is not in the outbox");
        if (!e.state.equals(state)) {
            throw new IllegalStateException("message " + messageId + " is " + e.state + ", not " + state);
        }
        return e.copy();
    }

    private static String repeat(char c, int n) {
        StringBuilder b = new StringBuilder(n);
        for (int i = 0; i < n; i++) b.append(c);
        return b.toString();
    }

    private static String with(String s, int index, char c) {
        StringBuilder b = new StringBuilder(s);
        b.setCharAt(index, c);
        return b.toString();
    }

    private static boolean all(String s, char c) {
        if (s.isEmpty()) return false;
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) != c) return false;
        }
        return true;
    }
}
