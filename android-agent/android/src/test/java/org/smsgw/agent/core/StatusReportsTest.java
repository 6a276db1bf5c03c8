package org.smsgw.agent.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertSame;

import org.junit.Test;

public class StatusReportsTest {
    /**
     * An SMS-STATUS-REPORT as the delivery PendingIntent's pdu extra holds it: SMSC address
     * +33609001390, first octet 0x06, TP-MR 0x2A, TP-RA +33612345678, TP-SCTS and TP-DT, TP-ST.
     */
    static byte[] statusReport(int tpStatus) {
        return hex("07913306091093F0" + "06" + "2A" + "0B913316325476F8" + "52117241150040" + "52117241150540"
                + String.format("%02X", tpStatus));
    }

    static byte[] hex(String s) {
        byte[] out = new byte[s.length() / 2];
        for (int i = 0; i < out.length; i++) out[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        return out;
    }

    @Test
    public void whenAStatusReportPduIsReadThenItsTpStatusComesOut() {
        assertEquals(0x00, StatusReports.tpStatus(statusReport(0x00)));
        assertEquals(0x46, StatusReports.tpStatus(statusReport(0x46)));
    }

    @Test
    public void whenThePduIsNoStatusReportOrIsCutShortThenItIsNotRead() {
        assertEquals(-1, StatusReports.tpStatus(hex("07913306091093F0" + "04" + "2A")));
        assertEquals(-1, StatusReports.tpStatus(hex("07913306091093F0062A0B91")));
        assertEquals(-1, StatusReports.tpStatus(new byte[0]));
        assertEquals(-1, StatusReports.tpStatus(null));
    }

    @Test
    public void whenTheRecipientHasAnOddNumberOfDigitsThenItsAddressIsSkippedRight() {
        // TP-RA of 5 semi-octets (odd: 3 octets), type 0x81.
        byte[] pdu = hex("00" + "06" + "01" + "058121436F" + "52117241150040" + "52117241150540" + "20");
        assertEquals(0x20, StatusReports.tpStatus(pdu));
    }

    @Test
    public void whenTheTpStatusIsBelow0x20ThenDelivered_From0x20Pending_From0x40Failed() {
        assertSame(Delivery.DELIVERED, StatusReports.ofTpStatus(0x00));
        assertSame(Delivery.DELIVERED, StatusReports.ofTpStatus(0x02));
        assertSame(Delivery.PENDING, StatusReports.ofTpStatus(0x20));
        assertSame(Delivery.PENDING, StatusReports.ofTpStatus(0x3F));
        assertEquals(Delivery.Kind.FAILED, StatusReports.ofTpStatus(0x40).kind);
        assertEquals(SmsError.INVALID_NUMBER, StatusReports.ofTpStatus(0x41).error.code);
        assertEquals(SmsError.BLACKLISTED, StatusReports.ofTpStatus(0x42).error.code);
        assertEquals(SmsError.OUT_OF_NETWORK, StatusReports.ofTpStatus(0x46).error.code);
        assertEquals(SmsError.OUT_OF_NETWORK, StatusReports.ofTpStatus(0x62).error.code);
        assertEquals(SmsError.DEVICE_ERROR, StatusReports.ofTpStatus(0x65).error.code);
    }

    @Test
    public void whenTheReportIsCdmaThenAndroidsStatusErrorClassDecides() {
        assertSame(Delivery.DELIVERED, StatusReports.read("3gpp2", null, 0x00020000));
        assertSame(Delivery.PENDING, StatusReports.read("3gpp2", null, 0x02000000));
        assertEquals(Delivery.Kind.FAILED, StatusReports.read("3gpp2", null, 0x03000000).kind);
    }

    @Test
    public void whenThePduCannotBeReadThenAndroidsOwnStatusIsUsed() {
        assertSame(Delivery.DELIVERED, StatusReports.read("3gpp", new byte[] {1, 2}, 0));
        assertSame(Delivery.PENDING, StatusReports.read("3gpp", statusReport(0x21), -1));
        assertEquals(Delivery.Kind.FAILED, StatusReports.read("3gpp", null, -1).kind);
    }
}
