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
    /** Protocol 8, with a sealed text: {@code add} or {@code remove}, the keyword matched on the phone; null otherwise. */
    public final String keywordAction;
    public final String keyword;

    public ReceivedSms(String receivedId, String from, String text, int sim, long receivedAt) {
        this(receivedId, from, text, sim, receivedAt, null, null);
    }

    public ReceivedSms(String receivedId, String from, String text, int sim, long receivedAt, String keywordAction, String keyword) {
        this.receivedId = receivedId;
        this.from = from;
        this.text = text;
        this.sim = sim;
        this.receivedAt = receivedAt;
        this.keywordAction = keywordAction;
        this.keyword = keyword;
    }
}
