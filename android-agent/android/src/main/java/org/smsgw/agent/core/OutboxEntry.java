package org.smsgw.agent.core;

import java.util.ArrayList;
import java.util.List;

/** One SMS of the outbox with what is known of its parts and its reports not yet acknowledged. */
public final class OutboxEntry {
    public static final String ACCEPTED = "accepted";
    public static final String SENDING = "sending";
    public static final String SENT = "sent";
    public static final String DELIVERED = "delivered";
    public static final String FAILED = "failed";

    public static final char PART_WAITING = '.';
    public static final char PART_SENT = 'S';
    public static final char PART_PENDING = 'P';
    public static final char PART_DELIVERED = 'D';

    public String messageId;
    /** Order of acceptance: SMS are sent in this order, also after a restart. */
    public long seq;
    public String to;
    public String text;
    public String traceparent;
    /** Epoch milliseconds from which the SMS must not begin to send; 0 when it never expires (and for entries of version 1). */
    public long expiresAt;
    /** The SIM slot the hub asked for (protocol 4); 0: the default SIM (and entries of schema 3 or older). */
    public int sim;
    /** The slot the SMS was handed to Android through, written with {@code sending}; 0 when unknown. */
    public int sentSim;
    public String state;
    /** How many parts Android sends it in; 0 until {@code sending}. */
    public int parts;
    /** One character per part: {@link #PART_WAITING} or {@link #PART_SENT}. */
    public String partsSent = "";
    /** One character per part: waiting, {@link #PART_PENDING} (the network still tries) or delivered. */
    public String partsDelivered = "";
    /** When the parts were handed to Android's telephony service; 0 while not (yet) handed over. */
    public long handedAt;
    /** The boot of the phone during which they were handed over: Android's callbacks do not survive a reboot. */
    public String handedBoot;
    /** While {@code sent}: until when a delivery report may still come. */
    public long deliveryWaitUntil;
    public long acceptedAt;
    public long updatedAt;
    /** Reports the hub has not acknowledged with report_ack, oldest first. */
    public List<PendingReport> reports = new ArrayList<PendingReport>();

    public static final class PendingReport {
        public final String status;
        public final long at;
        public final SmsError error;
        /** A {@code failed} report the phone is sure of: nothing of the SMS left it. Kept so a re-sent report says it too. */
        public final boolean notSent;

        public PendingReport(String status, long at, SmsError error) {
            this(status, at, error, false);
        }

        public PendingReport(String status, long at, SmsError error, boolean notSent) {
            this.status = status;
            this.at = at;
            this.error = error;
            this.notSent = notSent;
        }
    }

    public OutboxEntry copy() {
        OutboxEntry c = new OutboxEntry();
        c.messageId = messageId;
        c.seq = seq;
        c.to = to;
        c.text = text;
        c.traceparent = traceparent;
        c.expiresAt = expiresAt;
        c.sim = sim;
        c.sentSim = sentSim;
        c.state = state;
        c.parts = parts;
        c.partsSent = partsSent;
        c.partsDelivered = partsDelivered;
        c.handedAt = handedAt;
        c.handedBoot = handedBoot;
        c.deliveryWaitUntil = deliveryWaitUntil;
        c.acceptedAt = acceptedAt;
        c.updatedAt = updatedAt;
        c.reports = new ArrayList<PendingReport>(reports);
        return c;
    }

    public Report reportOf(PendingReport pending) {
        return new Report(messageId, pending.status, pending.at, pending.error, pending.notSent, traceparent, sentSim);
    }

    public boolean hasReport(String status) {
        for (PendingReport r : reports) {
            if (r.status.equals(status)) return true;
        }
        return false;
    }
}
