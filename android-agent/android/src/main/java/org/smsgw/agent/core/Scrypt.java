package org.smsgw.agent.core;

import java.security.GeneralSecurityException;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** scrypt (RFC 7914) in plain Java: the JDK and Android have none. Used by the end-to-end {@link Envelope}. */
final class Scrypt {
    private Scrypt() {
    }

    static byte[] derive(byte[] passphrase, byte[] salt, int n, int r, int p, int length) throws GeneralSecurityException {
        int blockWords = 32 * r;
        byte[] b = pbkdf2(passphrase, salt, p * 128 * r);
        int[] x = new int[blockWords];
        int[] v = new int[blockWords * n];
        int[] y = new int[blockWords];
        for (int i = 0; i < p; i++) {
            int offset = i * 128 * r;
            for (int w = 0; w < blockWords; w++) x[w] = readLe(b, offset + w * 4);
            roMix(x, v, y, n, r);
            for (int w = 0; w < blockWords; w++) writeLe(b, offset + w * 4, x[w]);
        }
        return pbkdf2(passphrase, b, length);
    }

    private static void roMix(int[] x, int[] v, int[] y, int n, int r) {
        int blockWords = x.length;
        for (int i = 0; i < n; i++) {
            System.arraycopy(x, 0, v, i * blockWords, blockWords);
            blockMix(x, y, r);
        }
        for (int i = 0; i < n; i++) {
            int j = x[(2 * r - 1) * 16] & (n - 1);
            for (int w = 0; w < blockWords; w++) x[w] ^= v[j * blockWords + w];
            blockMix(x, y, r);
        }
    }

    /** BlockMix with Salsa20/8, in place on b; y is scratch of the same size. */
    private static void blockMix(int[] b, int[] y, int r) {
        int[] t = new int[16];
        System.arraycopy(b, (2 * r - 1) * 16, t, 0, 16);
        for (int i = 0; i < 2 * r; i++) {
            for (int w = 0; w < 16; w++) t[w] ^= b[i * 16 + w];
            salsa8(t);
            // Even blocks go to the first half, odd blocks to the second.
            int to = (i % 2 == 0 ? i / 2 : r + i / 2) * 16;
            System.arraycopy(t, 0, y, to, 16);
        }
        System.arraycopy(y, 0, b, 0, b.length);
    }

    private static void salsa8(int[] b) {
        int[] x = b.clone();
        for (int i = 0; i < 8; i += 2) {
            x[4] ^= rotl(x[0] + x[12], 7); x[8] ^= rotl(x[4] + x[0], 9);
            x[12] ^= rotl(x[8] + x[4], 13); x[0] ^= rotl(x[12] + x[8], 18);
            x[9] ^= rotl(x[5] + x[1], 7); x[13] ^= rotl(x[9] + x[5], 9);
            x[1] ^= rotl(x[13] + x[9], 13); x[5] ^= rotl(x[1] + x[13], 18);
            x[14] ^= rotl(x[10] + x[6], 7); x[2] ^= rotl(x[14] + x[10], 9);
            x[6] ^= rotl(x[2] + x[14], 13); x[10] ^= rotl(x[6] + x[2], 18);
            x[3] ^= rotl(x[15] + x[11], 7); x[7] ^= rotl(x[3] + x[15], 9);
            x[11] ^= rotl(x[7] + x[3], 13); x[15] ^= rotl(x[11] + x[7], 18);
            x[1] ^= rotl(x[0] + x[3], 7); x[2] ^= rotl(x[1] + x[0], 9);
            x[3] ^= rotl(x[2] + x[1], 13); x[0] ^= rotl(x[3] + x[2], 18);
            x[6] ^= rotl(x[5] + x[4], 7); x[7] ^= rotl(x[6] + x[5], 9);
            x[4] ^= rotl(x[7] + x[6], 13); x[5] ^= rotl(x[4] + x[7], 18);
            x[11] ^= rotl(x[10] + x[9], 7); x[8] ^= rotl(x[11] + x[10], 9);
            x[9] ^= rotl(x[8] + x[11], 13); x[10] ^= rotl(x[9] + x[8], 18);
            x[12] ^= rotl(x[15] + x[14], 7); x[13] ^= rotl(x[12] + x[15], 9);
            x[14] ^= rotl(x[13] + x[12], 13); x[15] ^= rotl(x[14] + x[13], 18);
        }
        for (int i = 0; i < 16; i++) b[i] += x[i];
    }

    private static int rotl(int a, int shift) {
        return (a << shift) | (a >>> (32 - shift));
    }

    /** PBKDF2-HMAC-SHA256 with one iteration, as scrypt uses it. */
    private static byte[] pbkdf2(byte[] passphrase, byte[] salt, int length) throws GeneralSecurityException {
        Mac mac = Mac.getInstance("HmacSHA256");
        // An empty key is legal in HMAC but not in SecretKeySpec: a block of zeros is the same key.
        mac.init(new SecretKeySpec(passphrase.length == 0 ? new byte[64] : passphrase, "HmacSHA256"));
        byte[] out = new byte[length];
        for (int block = 1, done = 0; done < length; block++) {
            mac.update(salt);
            mac.update(new byte[] {(byte) (block >>> 24), (byte) (block >>> 16), (byte) (block >>> 8), (byte) block});
            byte[] u = mac.doFinal();
            int take = Math.min(u.length, length - done);
            System.arraycopy(u, 0, out, done, take);
            done += take;
        }
        return out;
    }

    private static int readLe(byte[] b, int at) {
        return (b[at] & 0xff) | (b[at + 1] & 0xff) << 8 | (b[at + 2] & 0xff) << 16 | (b[at + 3] & 0xff) << 24;
    }

    private static void writeLe(byte[] b, int at, int v) {
        b[at] = (byte) v;
        b[at + 1] = (byte) (v >>> 8);
        b[at + 2] = (byte) (v >>> 16);
        b[at + 3] = (byte) (v >>> 24);
    }
}
