package org.smsgw.agent.core;

/** An SMS the phone received (protocol 3), kept in the inbox until the hub's {@code received_ack}. */
public final class ReceivedSms {
    /** A random UUID, made once when the SMS arrived. */
    public final String receivedId;
    public final String from;
    public final String text;
    /** The SIM slot, 1 for the first; 0 when unknown. */
    public final int sim;
    /** Epoch milliseconds. */
    public final long receivedAt;

    public ReceivedSms(String receivedId, String from, String text, int sim, long receivedAt) {
        this.receivedId = receivedId;
        this.from = from;
        this.text = text;
        this.sim = sim;
        this.receivedAt = receivedAt;
    }
}
