package org.smsgw.agent.core;

/**
 * Android's sent results mapped to the protocol's failure causes. The result codes are
 * SmsManager's (most of them are newer than API 23, so they are written as values); the
 * {@code errorCode} extra, when Android gives one, is the network's cause per 3GPP TS 27.005
 * §3.2.5: an RP-cause (TS 24.011 §8.2.5.4) below 128, a TP-FCS (TS 23.040 §9.2.3.22) from 128.
 */
public final class SendFailures {
    /** Activity.RESULT_OK: the part left the phone. */
    public static final int RESULT_OK = -1;

    static final int GENERIC_FAILURE = 1;
    static final int RADIO_OFF = 2;
    static final int NULL_PDU = 3;
    static final int NO_SERVICE = 4;
    static final int LIMIT_EXCEEDED = 5;
    static final int FDN_CHECK_FAILURE = 6;
    static final int SHORT_CODE_NOT_ALLOWED = 7;
    static final int SHORT_CODE_NEVER_ALLOWED = 8;
    static final int RADIO_NOT_AVAILABLE = 9;
    static final int NETWORK_REJECT = 10;
    static final int INVALID_ARGUMENTS = 11;
    static final int INVALID_SMS_FORMAT = 14;
    static final int NETWORK_ERROR = 17;
    static final int ENCODING_ERROR = 18;
    static final int INVALID_SMSC_ADDRESS = 19;
    static final int SMS_BLOCKED_DURING_EMERGENCY = 29;
    static final int RIL_RADIO_NOT_AVAILABLE = 100;
    static final int RIL_NETWORK_REJECT = 102;
    static final int RIL_INVALID_ARGUMENTS = 104;
    static final int RIL_NETWORK_NOT_READY = 116;
    static final int RIL_SIM_ABSENT = 120;
    static final int RIL_NO_NETWORK_FOUND = 135;

    private SendFailures() {
    }

    /**
     * True for the sent results where Android refused the part before it reached the network
     * (generic failure, radio off, no service, Android's own SMS limit): when no part of the SMS
     * was sent before, nothing of it left the phone, and another phone may send it (not_sent).
     */
    public static boolean refusedBeforeSending(int resultCode) {
        return resultCode == GENERIC_FAILURE || resultCode == RADIO_OFF || resultCode == NO_SERVICE || resultCode == LIMIT_EXCEEDED;
    }

    /** The failure a sent report stands for, or null when the part was sent. */
    public static SmsError ofSentResult(int resultCode, int errorCode) {
        if (resultCode == RESULT_OK) return null;
        SmsError fromNetwork = ofNetworkCause(errorCode);
        String detail = " (Android result " + resultCode + (errorCode > 0 ? ", network cause " + errorCode : "") + ")";
        switch (resultCode) {
            case RADIO_OFF:
                return new SmsError(SmsError.OUT_OF_NETWORK, "the phone's radio is off (airplane mode?)" + detail);
            case NO_SERVICE:
            case RADIO_NOT_AVAILABLE:
            case RIL_RADIO_NOT_AVAILABLE:
            case RIL_NETWORK_NOT_READY:
            case RIL_NO_NETWORK_FOUND:
                return new SmsError(SmsError.OUT_OF_NETWORK, "the phone has no mobile service" + detail);
            case RIL_SIM_ABSENT:
                return new SmsError(SmsError.DEVICE_ERROR, "the phone has no SIM card" + detail);
            case LIMIT_EXCEEDED:
                return new SmsError(SmsError.DEVICE_ERROR,
                        "Android's limit of SMS per period was reached; raise it or slow the pace" + detail);
            case FDN_CHECK_FAILURE:
                return new SmsError(SmsError.BLACKLISTED, "the number is not in the SIM's fixed dialling numbers" + detail);
            case SHORT_CODE_NOT_ALLOWED:
            case SHORT_CODE_NEVER_ALLOWED:
                return new SmsError(SmsError.BLACKLISTED, "Android refuses to send to this premium short code" + detail);
            case SMS_BLOCKED_DURING_EMERGENCY:
                return new SmsError(SmsError.DEVICE_ERROR, "SMS are blocked during an emergency call" + detail);
            case INVALID_ARGUMENTS:
            case RIL_INVALID_ARGUMENTS:
                return new SmsError(SmsError.INVALID_NUMBER, "Android refused the recipient or the text" + detail);
            case NULL_PDU:
            case INVALID_SMS_FORMAT:
            case ENCODING_ERROR:
                return new SmsError(SmsError.DEVICE_ERROR, "Android could not encode the SMS" + detail);
            case INVALID_SMSC_ADDRESS:
                return new SmsError(SmsError.DEVICE_ERROR, "the SIM's SMS centre number is wrong" + detail);
            case GENERIC_FAILURE:
            case NETWORK_REJECT:
            case RIL_NETWORK_REJECT:
            case NETWORK_ERROR:
            default:
                if (fromNetwork != null) return new SmsError(fromNetwork.code, fromNetwork.message + detail);
                return new SmsError(SmsError.DEVICE_ERROR, "the SMS could not be sent" + detail);
        }
    }

    /** What the network's cause says, when it says something the protocol has a code for. */
    static SmsError ofNetworkCause(int cause) {
        switch (cause) {
            case 1: // unassigned (unallocated) number
            case 28: // unidentified subscriber
            case 30: // unknown subscriber
                return new SmsError(SmsError.INVALID_NUMBER, "the network does not know the recipient");
            case 8: // operator determined barring: what prepaid lines without credit get
            case 50: // requested facility not subscribed
                return new SmsError(SmsError.INSUFFICIENT_CREDIT, "the operator bars sending from this line (credit or subscription)");
            case 10: // call barred
            case 21: // short message transfer rejected
                return new SmsError(SmsError.BLACKLISTED, "the network refused this SMS to this recipient");
            case 27: // destination out of order
            case 38: // network out of order
            case 41: // temporary failure
            case 42: // congestion
            case 47: // resources unavailable
                return new SmsError(SmsError.OUT_OF_NETWORK, "the network could not reach the recipient");
            default:
                return null;
        }
    }
}
