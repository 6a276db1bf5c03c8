package org.smsgw.agent.core;

import org.json.JSONException;
import org.json.JSONObject;

/** What the phone did with one SMS, as its send record keeps it and its digest lists it (protocol 7). */
public final class RecordEntry {
    public String messageId;
    /** One of the outbox's states: accepted, sending, sent, delivered, failed. */
    public String state;
    public int parts = 1;
    public int partsSent;
    public int partsFailed;
    public int partsDelivered;
    /** Epoch milliseconds of the hand-over (the outbox's accepted_at); the other times 0 until they happen. */
    public long acceptedAt;
    public long sentAt;
    public long deliveredAt;
    public long failedAt;
    public SmsError error;
    public boolean notSent;
    /** The SIM slot it went through; 0: unknown. */
    public int sim;

    public RecordEntry copy() {
        RecordEntry c = new RecordEntry();
        c.messageId = messageId;
        c.state = state;
        c.parts = parts;
        c.partsSent = partsSent;
        c.partsFailed = partsFailed;
        c.partsDelivered = partsDelivered;
        c.acceptedAt = acceptedAt;
        c.sentAt = sentAt;
        c.deliveredAt = deliveredAt;
        c.failedAt = failedAt;
        c.error = error;
        c.notSent = notSent;
        c.sim = sim;
        return c;
    }

    /** The entry as a digest frame lists it: times in RFC 3339, empty fields left out. */
    public JSONObject toJson() {
        try {
            JSONObject o = new JSONObject()
                    .put("message_id", messageId)
                    .put("state", state)
                    .put("parts", parts)
                    .put("parts_sent", partsSent)
                    .put("parts_failed", partsFailed)
                    .put("parts_delivered", partsDelivered)
                    .put("accepted_at", Times.rfc3339(acceptedAt));
            if (sentAt > 0) o.put("sent_at", Times.rfc3339(sentAt));
            if (deliveredAt > 0) o.put("delivered_at", Times.rfc3339(deliveredAt));
            if (failedAt > 0) o.put("failed_at", Times.rfc3339(failedAt));
            if (error != null) o.put("error", new JSONObject().put("code", error.code).put("message", error.message));
            if (notSent) o.put("not_sent", true);
            if (sim > 0) o.put("sim", sim);
            return o;
        } catch (JSONException e) {
            throw new IllegalStateException(e);
        }
    }
}
