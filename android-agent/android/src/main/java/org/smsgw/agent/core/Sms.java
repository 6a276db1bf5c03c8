package org.smsgw.agent.core;

/** An SMS the hub asked this phone to send (the {@code sms} frame). */
public final class Sms {
    public final String messageId;
    public final String to;
    public final String text;
    /** The hub's W3C trace context, echoed on the ack and every report; null when absent. */
    public final String traceparent;

    public Sms(String messageId, String to, String text, String traceparent) {
        this.messageId = messageId;
        this.to = to;
        this.text = text;
        this.traceparent = traceparent;
    }
}
