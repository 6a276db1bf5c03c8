package org.smsgw.agent.core;

/** What one delivery report says of one part. */
public final class Delivery {
    public enum Kind { DELIVERED, PENDING, FAILED }

    public final Kind kind;
    /** Only for FAILED. */
    public final SmsError error;

    private Delivery(Kind kind, SmsError error) {
        this.kind = kind;
        this.error = error;
    }

    public static final Delivery DELIVERED = new Delivery(Kind.DELIVERED, null);
    public static final Delivery PENDING = new Delivery(Kind.PENDING, null);

    public static Delivery failed(SmsError error) {
        return new Delivery(Kind.FAILED, error);
    }

    @Override
    public String toString() {
        return kind == Kind.FAILED ? "FAILED " + error : kind.name();
    }
}
