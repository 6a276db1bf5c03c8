package org.smsgw.agent.core;

import java.util.Random;

/** Reconnection backoff of PROTOCOL.md §3: exponential, with full jitter. */
public final class Backoff {
    public static final long BASE_MS = 1000;
    public static final long CAP_MS = 60000;
    /** A connection that stays up this long resets the attempt counter. */
    public static final long STABLE_CONNECTION_MS = 10000;

    private Backoff() {
    }

    /**
     * Delay before reconnection attempt {@code attempt} (0 for the first retry): a random time
     * between 0 and min(cap, base * 2^attempt). Full jitter spreads the phones of a restarted
     * hub over the whole window instead of bunching them at its end.
     */
    public static long delayMs(int attempt, Random random) {
        int exponent = Math.max(0, Math.min(attempt, 30));
        long ceiling = Math.min(CAP_MS, BASE_MS << exponent);
        return (long) Math.floor(random.nextDouble() * ceiling);
    }
}
