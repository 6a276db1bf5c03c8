package org.smsgw.agent.core;

/** The {@code error} of a {@code failed} report: one of the protocol's codes and a message. */
public final class SmsError {
    public static final String INVALID_NUMBER = "INVALID_NUMBER";
    public static final String OUT_OF_NETWORK = "OUT_OF_NETWORK";
    public static final String INSUFFICIENT_CREDIT = "INSUFFICIENT_CREDIT";
    public static final String BLACKLISTED = "BLACKLISTED";
    /** The SMS expired before the phone began to send it (protocol 2): it was not sent. */
    public static final String EXPIRED = "EXPIRED";
    public static final String DEVICE_ERROR = "DEVICE_ERROR";
    /** Protocol 8: an encrypted text that does not open, or whose plain text is too long; not sent. */
    public static final String DECRYPTION_FAILED = "DECRYPTION_FAILED";
    public static final String MESSAGE_TOO_LONG = "MESSAGE_TOO_LONG";

    public final String code;
    public final String message;

    public SmsError(String code, String message) {
        this.code = code;
        this.message = message;
    }

    @Override
    public boolean equals(Object other) {
        if (!(other instanceof SmsError)) return false;
        SmsError that = (SmsError) other;
        return code.equals(that.code) && message.equals(that.message);
    }

    @Override
    public int hashCode() {
        return code.hashCode() * 31 + message.hashCode();
    }

    @Override
    public String toString() {
        return code + ": " + message;
    }
}
