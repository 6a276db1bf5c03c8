package org.smsgw.agent.core;

/** Android's sent and delivery reports of one part, turned into outbox changes. */
public final class SmsResults {
    private SmsResults() {
    }

    /** A sent PendingIntent fired with {@code resultCode} and its {@code errorCode} extra (-1 when absent). */
    public static void sent(Outbox outbox, String messageId, int part, int resultCode, int errorCode) {
        outbox.partSent(messageId, part, SendFailures.ofSentResult(resultCode, errorCode),
                SendFailures.refusedBeforeSending(resultCode));
    }

    /**
     * A delivery PendingIntent fired with its {@code pdu} and {@code format} extras;
     * {@code frameworkStatus} is SmsMessage.getStatus() of that PDU (-1 when Android could not read it).
     */
    public static void delivered(Outbox outbox, String messageId, int part, String format, byte[] pdu, int frameworkStatus) {
        outbox.partDelivered(messageId, part, StatusReports.read(format, pdu, frameworkStatus));
    }
}
