package org.smsgw.agent.core;

import java.util.List;

/**
 * Sends SMS: SmsManager on the phone, a stand-in that records in the JVM tests. The outcome of
 * each part comes back later through {@link SmsResults} (Android's sent and delivery reports).
 */
public interface SmsSender {
    /** The parts the text is sent in (SmsManager.divideMessage). */
    List<String> divide(String text);

    /**
     * The phone's active SIMs ordered by slot (protocol 4); empty when it has none; null when the
     * app may not read them (READ_PHONE_STATE refused). Never throws.
     */
    List<Sim> sims();

    /** The slot of the SIM the phone sends through by default, 0 when unknown. Never throws. */
    int defaultSlot();

    /**
     * Hands every part to the phone, each with a sent and a delivery callback, through {@code sim}
     * (one of {@link #sims()}), or through the default SIM when null.
     */
    void send(String messageId, String to, List<String> parts, Sim sim) throws Refused;

    /** The phone refused the SMS at once: it never left. */
    final class Refused extends Exception {
        public final SmsError error;

        public Refused(SmsError error) {
            super(error.toString());
            this.error = error;
        }
    }
}
