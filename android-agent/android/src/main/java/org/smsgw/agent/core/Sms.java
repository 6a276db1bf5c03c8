package org.smsgw.agent.core;

/** An SMS the hub asked this phone to send (the {@code sms} frame). */
public final class Sms {
    public final String messageId;
    public final String to;
    public final String text;
    /** The hub's W3C trace context, echoed on the ack and every report; null when absent. */
    public final String traceparent;
    /** Epoch milliseconds after which the SMS must not begin to send (protocol 2); 0 when it never expires. */
    public final long expiresAt;
    /** The SIM slot to send through (protocol 4), 1 for the first; 0 for the phone's default SIM. */
    public final int sim;

    public Sms(String messageId, String to, String text, String traceparent) {
        this(messageId, to, text, traceparent, 0);
    }

    public Sms(String messageId, String to, String text, String traceparent, long expiresAt) {
        this(messageId, to, text, traceparent, expiresAt, 0);
    }

    public Sms(String messageId, String to, String text, String traceparent, long expiresAt, int sim) {
        this.messageId = messageId;
        this.to = to;
        this.text = text;
        this.traceparent = traceparent;
        this.expiresAt = expiresAt;
        this.sim = sim;
    }

    /** True when sending must not begin at {@code now}: the expiry has come. */
    public static boolean expired(long expiresAt, long now) {
        return expiresAt > 0 && now >= expiresAt;
    }
}
