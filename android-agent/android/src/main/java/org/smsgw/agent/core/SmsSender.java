package org.smsgw.agent.core;

import java.util.List;

/**
 * Sends SMS: SmsManager on the phone, a stand-in that records in the JVM tests. The outcome of
 * each part comes back later through {@link SmsResults} (Android's sent and delivery reports).
 */
public interface SmsSender {
    /** The parts the text is sent in (SmsManager.divideMessage). */
    List<String> divide(String text);

    /** Hands every part to the phone, each with a sent and a delivery callback. */
    void send(String messageId, String to, List<String> parts) throws Refused;

    /** The phone refused the SMS at once: it never left. */
    final class Refused extends Exception {
        public final SmsError error;

        public Refused(SmsError error) {
            super(error.toString());
            this.error = error;
        }
    }
}
