package org.smsgw.agent.core;

import java.text.SimpleDateFormat;
import java.util.Date;
import java.util.Locale;
import java.util.TimeZone;

/** RFC 3339 times in UTC, as the protocol writes them (java.time needs API 26). */
public final class Times {
    private Times() {
    }

    public static String rfc3339(long epochMs) {
        // SimpleDateFormat is not thread-safe: one per call.
        SimpleDateFormat format = new SimpleDateFormat("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'", Locale.US);
        format.setTimeZone(TimeZone.getTimeZone("UTC"));
        return format.format(new Date(epochMs));
    }
}
