package org.smsgw.agent.core;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Pattern;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * Protocol version 8 of android-agent/PROTOCOL.md: the frames both ways. The checks are the
 * Node agent's (src/protocol.ts), so both agents accept and refuse the same frames.
 */
public final class Protocol {
    public static final int VERSION = 8;
    /** The first hub protocol that takes {@code digest} frames. */
    public static final int DIGEST_VERSION = 7;
    /** Announced in {@code agent_hello}. */
    public static final String DRIVER = "android";
    /** The subprotocol names the framing, which version 2 keeps; the version itself is in {@code hello}. */
    public static final String SUBPROTOCOL = "smsgw.agent.v1";
    public static final String PAIR_PATH = "/v1/agent/pair";
    public static final String AGENT_PATH = "/v1/agent";
    /** A token revoked while connected. */
    public static final int CLOSE_REVOKED = 4001;
    /** Another connection of the same device took over. */
    public static final int CLOSE_REPLACED = 4002;

    private static final Pattern TRACEPARENT = Pattern.compile("^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$");
    // Ids are stored and used as keys; the limit is the Node agent's (file names there).
    private static final int MAX_MESSAGE_ID_LENGTH = 200;
    /** The hub names slots 1 to 8; a larger one is kept so that it fails as an absent SIM. */
    private static final int MAX_SIM = 255;

    private Protocol() {
    }

    /** Hubs of versions 1 to 6 work too: each version only adds what an older hub ignores. */
    public static boolean isSupported(int version) {
        return version >= 1 && version <= VERSION;
    }

    /**
     * Checks a text frame from the hub. Unknown types come back as UNKNOWN so the caller can
     * ignore them (forward compatibility); known types with missing or mistyped fields are INVALID.
     */
    public static HubFrame parse(String text) {
        JSONObject frame;
        try {
            frame = new JSONObject(text);
        } catch (JSONException e) {
            return HubFrame.invalid("not a JSON object");
        }
        Object type = frame.opt("type");
        if (!(type instanceof String)) return HubFrame.invalid("not an object with a string type");
        if ("hello".equals(type)) {
            Object protocol = frame.opt("protocol");
            Object deviceId = frame.opt("device_id");
            if (!(protocol instanceof Number) || !(deviceId instanceof String)) {
                return HubFrame.invalid("hello without protocol or device_id");
            }
            Object ping = frame.opt("ping_interval_ms");
            long pingMs = ping instanceof Number && ((Number) ping).doubleValue() > 0 ? ((Number) ping).longValue() : 0;
            return HubFrame.hello(((Number) protocol).intValue(), (String) deviceId, pingMs);
        }
        if ("sms".equals(type)) {
            Object to = frame.opt("to");
            Object body = frame.opt("text");
            String messageId = messageIdOf(frame);
            if (messageId == null || !(to instanceof String) || !(body instanceof String)) {
                return HubFrame.invalid("sms without a valid message_id, to or text");
            }
            Object attempt = frame.opt("attempt");
            // A malformed expiry is dropped, as a malformed traceparent: refusing the frame would only
            // have the hub offer it again and again until its lease runs out.
            long expiresAt = Times.parseRfc3339(frame.opt("expires_at"));
            return HubFrame.sms(new Sms(messageId, (String) to, (String) body, traceparentOf(frame.opt("traceparent")), expiresAt,
                    simOf(frame.opt("sim"))), attempt instanceof Number ? ((Number) attempt).intValue() : 0);
        }
        if ("report_ack".equals(type)) {
            String messageId = messageIdOf(frame);
            Object status = frame.opt("status");
            if (messageId == null || !isReportStatus(status)) {
                return HubFrame.invalid("report_ack without a valid message_id or status");
            }
            return HubFrame.reportAck(messageId, (String) status);
        }
        if ("received_ack".equals(type)) {
            // The received_id is looked up, never trusted further: the same bounds as a message_id.
            Object id = frame.opt("received_id");
            if (!(id instanceof String) || ((String) id).isEmpty() || ((String) id).length() > MAX_MESSAGE_ID_LENGTH) {
                return HubFrame.invalid("received_ack without a valid received_id");
            }
            return HubFrame.receivedAck((String) id);
        }
        if ("received_retry".equals(type)) {
            Object id = frame.opt("received_id");
            Object after = frame.opt("after_ms");
            if (!(id instanceof String) || ((String) id).isEmpty() || ((String) id).length() > MAX_MESSAGE_ID_LENGTH
                    || !isNonNegative(after)) {
                return HubFrame.invalid("received_retry without a valid received_id or after_ms");
            }
            return HubFrame.receivedRetry((String) id, ((Number) after).longValue());
        }
        if ("log_request".equals(type)) return HubFrame.logRequest();
        if ("settings".equals(type)) {
            Object version = frame.opt("version");
            if (!(version instanceof String) || ((String) version).isEmpty() || ((String) version).length() > 64) {
                return HubFrame.invalid("settings without a valid version");
            }
            JSONObject kept = new JSONObject();
            try {
                kept.put("version", version);
                if (frame.opt("limits") instanceof JSONObject) kept.put("limits", frame.opt("limits"));
                if (frame.opt("sim_rule") instanceof JSONObject) kept.put("sim_rule", frame.opt("sim_rule"));
            } catch (JSONException e) {
                return HubFrame.invalid("settings that cannot be read");
            }
            return HubFrame.settings((String) version, kept.toString());
        }
        // simulate_received is for the simulator driver only: the app leaves it UNKNOWN and ignores it.
        if ("reconnect".equals(type)) {
            Object after = frame.opt("after_ms");
            if (!isNonNegative(after)) {
                return HubFrame.invalid("reconnect without a valid after_ms");
            }
            return HubFrame.reconnect(((Number) after).longValue());
        }
        return HubFrame.unknown((String) type);
    }

    private static boolean isNonNegative(Object value) {
        if (!(value instanceof Number)) return false;
        double d = ((Number) value).doubleValue();
        return !Double.isNaN(d) && !Double.isInfinite(d) && d >= 0;
    }

    /** The {@code log} frame (protocol 6): the recent lines, redacted and bounded by the caller. */
    public static String log(List<String> lines) {
        try {
            return new JSONObject().put("type", "log").put("lines", new JSONArray(lines)).toString();
        } catch (JSONException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The {@code settings_applied} frame (protocol 6): the version kept and the parts it held. */
    public static String settingsApplied(String version, String settingsJson) {
        try {
            JSONArray applied = new JSONArray();
            JSONObject settings = new JSONObject(settingsJson);
            if (settings.has("limits")) applied.put("limits");
            if (settings.has("sim_rule")) applied.put("sim_rule");
            return new JSONObject().put("type", "settings_applied").put("version", version).put("applied", applied).toString();
        } catch (JSONException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The {@code ack} frame: the SMS is in the outbox on disk. */
    public static String ack(String messageId, String traceparent) {
        try {
            JSONObject frame = new JSONObject().put("type", "ack").put("message_id", messageId);
            if (traceparent != null) frame.put("traceparent", traceparent);
            return frame.toString();
        } catch (JSONException e) {
            throw new IllegalStateException(e);
        }
    }

    public static String report(Report report) {
        try {
            JSONObject frame = new JSONObject()
                    .put("type", "report")
                    .put("message_id", report.messageId)
                    .put("status", report.status)
                    .put("at", Times.rfc3339(report.at));
            if (report.error != null) {
                frame.put("error", new JSONObject().put("code", report.error.code).put("message", report.error.message));
            }
            if (report.notSent) frame.put("not_sent", true);
            if (report.traceparent != null) frame.put("traceparent", report.traceparent);
            if (report.sim > 0) frame.put("sim", report.sim);
            return frame.toString();
        } catch (JSONException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * {@code agent_hello}, right after the hub's hello (protocol 3), with the phone's SIMs ordered
     * by slot (protocol 4; {@code sims} null, SIMs the app may not read, sends {@code []}). Unknown
     * carriers and numbers are left out.
     */
    public static String agentHello(List<Sim> sims) {
        try {
            List<Sim> sorted = sims == null ? new ArrayList<Sim>() : new ArrayList<Sim>(sims);
            Collections.sort(sorted, new Comparator<Sim>() {
                @Override
                public int compare(Sim a, Sim b) {
                    return a.slot < b.slot ? -1 : a.slot == b.slot ? 0 : 1;
                }
            });
            JSONArray list = new JSONArray();
            int last = 0;
            for (Sim sim : sorted) {
                if (sim.slot <= last) continue; // one entry a slot
                last = sim.slot;
                JSONObject entry = new JSONObject().put("slot", sim.slot);
                if (sim.carrier != null) entry.put("carrier", sim.carrier);
                if (sim.number != null) entry.put("number", sim.number);
                list.put(entry);
            }
            return new JSONObject().put("type", "agent_hello").put("protocol", VERSION).put("driver", DRIVER).put("sims", list)
                    .toString();
        } catch (JSONException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A {@code received} frame (protocol 3); {@code sim} left out when unknown, {@code keyword} (8) when none. */
    public static String received(ReceivedSms sms) {
        try {
            JSONObject frame = new JSONObject()
                    .put("type", "received")
                    .put("received_id", sms.receivedId)
                    .put("from", sms.from)
                    .put("text", sms.text)
                    .put("received_at", Times.rfc3339(sms.receivedAt));
            if (sms.sim > 0) frame.put("sim", sms.sim);
            // Protocol 8: the keyword matched on the phone, beside a sealed text only.
            if (sms.keywordAction != null && Envelope.isEnvelope(sms.text)) {
                frame.put("keyword", new JSONObject().put("action", sms.keywordAction).put("keyword", sms.keyword));
            }
            return frame.toString();
        } catch (JSONException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * The {@code sms} frame's SIM slot (protocol 4): a whole number from 1; anything else is
     * dropped (0, the default SIM), as a malformed expiry is.
     */
    static int simOf(Object value) {
        if (!(value instanceof Number)) return 0;
        double d = ((Number) value).doubleValue();
        return d >= 1 && d <= MAX_SIM && d == Math.floor(d) ? (int) d : 0;
    }

    /** A well-formed W3C traceparent, or null: the agent only echoes it. */
    public static String traceparentOf(Object value) {
        return value instanceof String && TRACEPARENT.matcher((String) value).matches() ? (String) value : null;
    }

    static boolean isReportStatus(Object status) {
        return Report.SENT.equals(status) || Report.DELIVERED.equals(status) || Report.FAILED.equals(status);
    }

    private static String messageIdOf(JSONObject frame) {
        Object id = frame.opt("message_id");
        if (!(id instanceof String)) return null;
        String s = (String) id;
        return s.length() > 0 && s.length() <= MAX_MESSAGE_ID_LENGTH ? s : null;
    }
}
