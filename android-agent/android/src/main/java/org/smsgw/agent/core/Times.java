package org.smsgw.agent.core;

import java.text.SimpleDateFormat;
import java.util.Calendar;
import java.util.Date;
import java.util.GregorianCalendar;
import java.util.Locale;
import java.util.TimeZone;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** RFC 3339 times in UTC, as the protocol writes them (java.time needs API 26). */
public final class Times {
    // SimpleDateFormat's 'X' (ISO offsets) needs API 24: the offset is read by hand.
    private static final Pattern RFC3339 = Pattern.compile(
            "^(\\d{4})-(\\d{2})-(\\d{2})[Tt ](\\d{2}):(\\d{2}):(\\d{2})(\\.\\d+)?(?:([Zz])|([+-])(\\d{2}):(\\d{2}))$");

    private Times() {
    }

    /** An RFC 3339 time as epoch milliseconds, or 0 when {@code value} is not one. */
    public static long parseRfc3339(Object value) {
        if (!(value instanceof String)) return 0;
        Matcher m = RFC3339.matcher((String) value);
        if (!m.matches()) return 0;
        GregorianCalendar c = new GregorianCalendar(TimeZone.getTimeZone("UTC"), Locale.US);
        c.clear();
        c.setLenient(false);
        c.set(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)) - 1, Integer.parseInt(m.group(3)),
                Integer.parseInt(m.group(4)), Integer.parseInt(m.group(5)), Integer.parseInt(m.group(6)));
        String fraction = m.group(7);
        int millis = fraction == null ? 0 : Integer.parseInt((fraction.substring(1) + "00").substring(0, 3));
        c.set(Calendar.MILLISECOND, millis);
        long ms;
        try {
            ms = c.getTimeInMillis();
        } catch (IllegalArgumentException e) {
            return 0; // a field out of range, such as month 13
        }
        if (m.group(8) == null) {
            long offset = (Integer.parseInt(m.group(10)) * 60L + Integer.parseInt(m.group(11))) * 60000L;
            ms += "+".equals(m.group(9)) ? -offset : offset;
        }
        return ms > 0 ? ms : 0;
    }

    public static String rfc3339(long epochMs) {
        // SimpleDateFormat is not thread-safe: one per call.
        SimpleDateFormat format = new SimpleDateFormat("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'", Locale.US);
        format.setTimeZone(TimeZone.getTimeZone("UTC"));
        return format.format(new Date(epochMs));
    }
}
