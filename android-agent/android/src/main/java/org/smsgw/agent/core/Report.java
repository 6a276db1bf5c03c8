package org.smsgw.agent.core;

/** Something that happened to an SMS, kept until the hub answers {@code report_ack}. */
public final class Report {
    public static final String SENT = "sent";
    public static final String DELIVERED = "delivered";
    public static final String FAILED = "failed";

    public final String messageId;
    public final String status;
    /** When it happened on the phone, epoch milliseconds. */
    public final long at;
    /** Only for {@code failed}. */
    public final SmsError error;
    /** Only for {@code failed}: the phone is sure nothing of the SMS left it (protocol 2). */
    public final boolean notSent;
    public final String traceparent;
    /** The SIM slot the SMS went through (protocol 4), 0 when unknown or when it was not sent. */
    public final int sim;

    public Report(String messageId, String status, long at, SmsError error, String traceparent) {
        this(messageId, status, at, error, false, traceparent);
    }

    public Report(String messageId, String status, long at, SmsError error, boolean notSent, String traceparent) {
        this(messageId, status, at, error, notSent, traceparent, 0);
    }

    public Report(String messageId, String status, long at, SmsError error, boolean notSent, String traceparent, int sim) {
        this.messageId = messageId;
        this.status = status;
        this.at = at;
        this.error = error;
        this.notSent = notSent;
        this.traceparent = traceparent;
        this.sim = sim;
    }

    @Override
    public String toString() {
        return messageId + " " + status + (error == null ? "" : " " + error.code) + (notSent ? " (not sent)" : "");
    }
}
