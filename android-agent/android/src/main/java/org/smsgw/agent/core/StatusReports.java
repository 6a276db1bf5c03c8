package org.smsgw.agent.core;

/**
 * Delivery reports. A 3GPP (GSM, UMTS, LTE) report is an SMS-STATUS-REPORT TPDU (3GPP TS 23.040
 * §9.2.2.3) behind the SMSC address, as the delivery PendingIntent's {@code pdu} extra holds it;
 * its TP-Status (§9.2.3.15) says: below 0x20 delivered, 0x20-0x3F the SMSC still tries, 0x40 and
 * above failed. A 3GPP2 (CDMA) report has no TP-Status: Android's SmsMessage.getStatus() gives
 * its error class in bits 24-25 (0 none, 2 temporary, 3 permanent).
 */
public final class StatusReports {
    public static final String FORMAT_3GPP = "3gpp";
    public static final String FORMAT_3GPP2 = "3gpp2";

    private StatusReports() {
    }

    /** The TP-Status of a 3GPP status report PDU, or -1 when it is not one. */
    public static int tpStatus(byte[] pdu) {
        if (pdu == null || pdu.length == 0) return -1;
        try {
            int i = 1 + (pdu[0] & 0xff); // SMSC address: its length, then that many octets
            int firstOctet = pdu[i++] & 0xff;
            if ((firstOctet & 0x03) != 0x02) return -1; // TP-MTI of an SMS-STATUS-REPORT
            i++; // TP-MR
            int digits = pdu[i++] & 0xff; // TP-RA: semi-octets, then the type of address
            i += 1 + (digits + 1) / 2;
            i += 7 + 7; // TP-SCTS, TP-DT
            if (i >= pdu.length) return -1;
            return pdu[i] & 0xff;
        } catch (ArrayIndexOutOfBoundsException e) {
            return -1;
        }
    }

    /** What a TP-Status says of the part. */
    public static Delivery ofTpStatus(int status) {
        if (status < 0) {
            return Delivery.failed(new SmsError(SmsError.DEVICE_ERROR, "unreadable delivery report"));
        }
        if (status < 0x20) return Delivery.DELIVERED;
        if (status < 0x40) return Delivery.PENDING;
        String detail = String.format(" (TP-Status 0x%02X)", status);
        switch (status) {
            case 0x41: // incompatible destination
            case 0x43: // not obtainable
                return Delivery.failed(new SmsError(SmsError.INVALID_NUMBER, "the recipient cannot receive SMS" + detail));
            case 0x42: // connection rejected by SME
                return Delivery.failed(new SmsError(SmsError.BLACKLISTED, "the recipient refused the SMS" + detail));
            case 0x46: // validity period expired
            case 0x61: // SME busy, no more attempts
            case 0x62: // no response from SME, no more attempts
            case 0x60: // congestion, no more attempts
                return Delivery.failed(new SmsError(SmsError.OUT_OF_NETWORK,
                        "the recipient's phone could not be reached before the SMS centre gave up" + detail));
            default:
                return Delivery.failed(new SmsError(SmsError.DEVICE_ERROR, "the SMS centre could not deliver the SMS" + detail));
        }
    }

    /** What Android's status of a 3GPP2 report says of the part. */
    public static Delivery ofCdmaStatus(int status) {
        int errorClass = (status >> 24) & 0x03;
        if (errorClass == 0) return Delivery.DELIVERED;
        if (errorClass == 2) return Delivery.PENDING;
        return Delivery.failed(new SmsError(SmsError.DEVICE_ERROR,
                String.format("the network could not deliver the SMS (CDMA status 0x%08X)", status)));
    }

    /**
     * The delivery report of a part: its PDU read here for 3GPP, or the status Android read
     * ({@code frameworkStatus}, -1 when unknown) for 3GPP2 and for PDUs this reader refuses.
     */
    public static Delivery read(String format, byte[] pdu, int frameworkStatus) {
        if (FORMAT_3GPP2.equals(format)) return ofCdmaStatus(frameworkStatus);
        int status = tpStatus(pdu);
        return ofTpStatus(status >= 0 ? status : frameworkStatus);
    }
}
