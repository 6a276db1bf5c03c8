package org.smsgw.agent.core;

/** Standard Base64 with padding: java.util.Base64 needs API 26 and android.util.Base64 is not on the JVM. */
final class Base64 {
    private static final char[] ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".toCharArray();

    private Base64() {
    }

    static String encode(byte[] data) {
        StringBuilder out = new StringBuilder((data.length + 2) / 3 * 4);
        for (int i = 0; i < data.length; i += 3) {
            int b0 = data[i] & 0xff;
            int b1 = i + 1 < data.length ? data[i + 1] & 0xff : 0;
            int b2 = i + 2 < data.length ? data[i + 2] & 0xff : 0;
            out.append(ALPHABET[b0 >> 2]);
            out.append(ALPHABET[((b0 & 0x03) << 4) | (b1 >> 4)]);
            out.append(i + 1 < data.length ? ALPHABET[((b1 & 0x0f) << 2) | (b2 >> 6)] : '=');
            out.append(i + 2 < data.length ? ALPHABET[b2 & 0x3f] : '=');
        }
        return out.toString();
    }
}
