package org.smsgw.agent.core;

import java.util.ArrayList;
import java.util.LinkedList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The app's recent log lines (protocol 6), redacted as they come in, the oldest dropped past the
 * bound: what the hub gets when it asks ({@code log_request}). The rules are the Node agent's
 * (src/log-ring.ts), so both agents send the same masks.
 */
public final class LogRing {
    public static final int LINES = 200;
    public static final int LINE_MAX = 300;
    /** A {@code log} frame carries at most this many bytes of lines, the newest kept. */
    public static final int FRAME_MAX_BYTES = 64 * 1024;

    private static final Pattern SECRET_FIELD =
            Pattern.compile("\\b(text|body|message|to|from|number|sim_number|code)=(\"(?:[^\"\\\\]|\\\\.)*\"|\\S+)");
    // A run of 5 or more digits (spaces, dots, dashes and brackets between them), optionally after
    // '+', that is not part of a word (an id keeps its digits) nor a date (2026-11-29): a phone number.
    private static final Pattern NUMBER =
            Pattern.compile("(?<![A-Za-z0-9_-])(?!\\d{4}-\\d\\d-\\d\\d)\\+?\\d[\\d ().-]{3,}\\d(?![A-Za-z0-9_])");

    private final int capacity;
    private final LinkedList<String> lines = new LinkedList<String>();

    public LogRing() {
        this(LINES);
    }

    public LogRing(int capacity) {
        this.capacity = capacity;
    }

    /** A line as it may leave the phone: text and number fields masked, phone numbers masked, at most 300 characters. */
    public static String redact(String line) {
        String out = SECRET_FIELD.matcher(line).replaceAll("$1=[redacted]");
        out = NUMBER.matcher(out).replaceAll("[number]");
        return out.length() > LINE_MAX ? out.substring(0, LINE_MAX) : out;
    }

    public synchronized void add(String line) {
        lines.addLast(redact(line));
        while (lines.size() > capacity) lines.removeFirst();
    }

    public synchronized List<String> snapshot() {
        return new ArrayList<String>(lines);
    }

    /** The newest lines that fit in {@code maxBytes} (UTF-8, with a few bytes of JSON each), oldest first. */
    public static List<String> bounded(List<String> lines, int maxBytes) {
        LinkedList<String> kept = new LinkedList<String>();
        int bytes = 0;
        for (int i = lines.size() - 1; i >= 0; i--) {
            bytes += utf8Length(lines.get(i)) + 4;
            if (bytes > maxBytes) break;
            kept.addFirst(lines.get(i));
        }
        return kept;
    }

    private static int utf8Length(String s) {
        try {
            return s.getBytes("UTF-8").length;
        } catch (java.io.UnsupportedEncodingException e) {
            return s.length() * 3;
        }
    }

    /** A logger that writes to {@code inner} and into this ring, each line stamped with the clock's time. */
    public Logger tee(final Logger inner, final Clock clock) {
        return new Logger() {
            @Override
            public void info(String message) {
                inner.info(message);
                add(Times.rfc3339(clock.now()) + " INFO " + message);
            }

            @Override
            public void warn(String message, Throwable error) {
                inner.warn(message, error);
                add(Times.rfc3339(clock.now()) + " WARN " + message + (error == null ? "" : ": " + error.getClass().getSimpleName()));
            }
        };
    }
}
