package org.smsgw.agent.core;

/** A frame from the hub, checked (PROTOCOL.md §2). */
public final class HubFrame {
    public enum Kind { HELLO, SMS, REPORT_ACK, RECEIVED_ACK, RECEIVED_RETRY, RECONNECT, LOG_REQUEST, SETTINGS, UNKNOWN, INVALID }

    public final Kind kind;
    /** The frame's type as sent (UNKNOWN), or why it is INVALID. */
    public final String detail;
    public final int protocol;
    public final String deviceId;
    /** 0 when the hub did not say. */
    public final long pingIntervalMs;
    public final Sms sms;
    public final int attempt;
    /** REPORT_ACK: the message_id; RECEIVED_ACK and RECEIVED_RETRY: the received_id. */
    public final String messageId;
    public final String status;
    public final long afterMs;

    private HubFrame(Kind kind, String detail, int protocol, String deviceId, long pingIntervalMs, Sms sms, int attempt,
            String messageId, String status, long afterMs) {
        this.kind = kind;
        this.detail = detail;
        this.protocol = protocol;
        this.deviceId = deviceId;
        this.pingIntervalMs = pingIntervalMs;
        this.sms = sms;
        this.attempt = attempt;
        this.messageId = messageId;
        this.status = status;
        this.afterMs = afterMs;
    }

    static HubFrame hello(int protocol, String deviceId, long pingIntervalMs) {
        return new HubFrame(Kind.HELLO, null, protocol, deviceId, pingIntervalMs, null, 0, null, null, 0);
    }

    static HubFrame sms(Sms sms, int attempt) {
        return new HubFrame(Kind.SMS, null, 0, null, 0, sms, attempt, sms.messageId, null, 0);
    }

    static HubFrame reportAck(String messageId, String status) {
        return new HubFrame(Kind.REPORT_ACK, null, 0, null, 0, null, 0, messageId, status, 0);
    }

    static HubFrame receivedAck(String receivedId) {
        return new HubFrame(Kind.RECEIVED_ACK, null, 0, null, 0, null, 0, receivedId, null, 0);
    }

    /** Protocol 5: the hub did not store this received SMS; send it again after {@code afterMs}. */
    static HubFrame receivedRetry(String receivedId, long afterMs) {
        return new HubFrame(Kind.RECEIVED_RETRY, null, 0, null, 0, null, 0, receivedId, null, afterMs);
    }

    static HubFrame reconnect(long afterMs) {
        return new HubFrame(Kind.RECONNECT, null, 0, null, 0, null, 0, null, null, afterMs);
    }

    /** Protocol 6: the hub asks for the recent log. */
    static HubFrame logRequest() {
        return new HubFrame(Kind.LOG_REQUEST, null, 0, null, 0, null, 0, null, null, 0);
    }

    /** Protocol 6: the server-owned settings; {@code messageId} holds the version, {@code status} the settings as JSON. */
    static HubFrame settings(String version, String settingsJson) {
        return new HubFrame(Kind.SETTINGS, null, 0, null, 0, null, 0, version, settingsJson, 0);
    }

    static HubFrame unknown(String type) {
        return new HubFrame(Kind.UNKNOWN, type, 0, null, 0, null, 0, null, null, 0);
    }

    static HubFrame invalid(String reason) {
        return new HubFrame(Kind.INVALID, reason, 0, null, 0, null, 0, null, null, 0);
    }
}
