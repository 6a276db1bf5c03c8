package org.smsgw.agent.core;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Puts the parts of received SMS back together. Android hands every part of a concatenated SMS
 * in one {@code SMS_RECEIVED} intent, in order, already decoded; the parts of one intent that
 * come from the same originating address are one SMS (a rare intent mixing senders gives one SMS
 * per sender). Android-free, so that it runs in the JVM tests.
 */
public final class SmsParts {
    /** One decoded part (a PDU). */
    public static final class Part {
        final String from;
        final String body;
        final long timestampMs;

        public Part(String from, String body, long timestampMs) {
            this.from = from;
            this.body = body;
            this.timestampMs = timestampMs;
        }
    }

    /** One whole SMS. */
    public static final class Message {
        public final String from;
        public final String text;
        /** The service centre's time of the first part, or 0 when no part had one. */
        public final long timestampMs;

        Message(String from, String text, long timestampMs) {
            this.from = from;
            this.text = text;
            this.timestampMs = timestampMs;
        }
    }

    private SmsParts() {
    }

    /** The SMS of one intent, in the order of their first part; parts without sender are dropped. */
    public static List<Message> reassemble(List<Part> parts) {
        Map<String, StringBuilder> texts = new LinkedHashMap<String, StringBuilder>();
        Map<String, Long> times = new LinkedHashMap<String, Long>();
        for (Part part : parts) {
            if (part == null || part.from == null || part.from.isEmpty()) continue;
            StringBuilder text = texts.get(part.from);
            if (text == null) {
                text = new StringBuilder();
                texts.put(part.from, text);
                times.put(part.from, Long.valueOf(part.timestampMs));
            }
            if (part.body != null) text.append(part.body);
        }
        List<Message> out = new ArrayList<Message>();
        for (Map.Entry<String, StringBuilder> e : texts.entrySet()) {
            out.add(new Message(e.getKey(), e.getValue().toString(), times.get(e.getKey()).longValue()));
        }
        return out;
    }
}
