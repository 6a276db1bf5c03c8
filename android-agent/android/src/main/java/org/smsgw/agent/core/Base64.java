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

    /** The bytes of a padded standard Base64 text; IllegalArgumentException for anything else. */
    static byte[] decode(String text) {
        if (text.length() % 4 != 0) throw new IllegalArgumentException("not base64");
        int pad = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
        byte[] out = new byte[text.length() / 4 * 3 - pad];
        int o = 0;
        for (int i = 0; i < text.length(); i += 4) {
            int n = 0;
            for (int j = 0; j < 4; j++) {
                char c = text.charAt(i + j);
                boolean padding = c == '=' && i + j >= text.length() - pad;
                n = (n << 6) | (padding ? 0 : indexOf(c));
            }
            for (int shift = 16; shift >= 0 && o < out.length; shift -= 8) out[o++] = (byte) (n >> shift);
        }
        return out;
    }

    private static int indexOf(char c) {
        if (c >= 'A' && c <= 'Z') return c - 'A';
        if (c >= 'a' && c <= 'z') return c - 'a' + 26;
        if (c >= '0' && c <= '9') return c - '0' + 52;
        if (c == '+') return 62;
        if (c == '/') return 63;
        throw new IllegalArgumentException("not base64");
    }
}
