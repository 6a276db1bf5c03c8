package org.smsgw.agent.core;

/** Pairing did not give credentials; {@link #kind} says whether trying again can help. */
public final class PairingException extends Exception {
    public enum Kind {
        /** The input is not a pairing URL, hub address, client id or password. */
        INVALID_INPUT,
        /** 401: unknown, used or expired code, or wrong password. */
        REFUSED,
        /** 429: too many tries; wait {@link #retryAfterSeconds}. */
        THROTTLED,
        /** The hub could not be reached or answered something unexpected. */
        FAILED
    }

    public final Kind kind;
    public final long retryAfterSeconds;

    public PairingException(Kind kind, String message, long retryAfterSeconds) {
        super(message);
        this.kind = kind;
        this.retryAfterSeconds = retryAfterSeconds;
    }

    public PairingException(Kind kind, String message) {
        this(kind, message, 0);
    }
}
