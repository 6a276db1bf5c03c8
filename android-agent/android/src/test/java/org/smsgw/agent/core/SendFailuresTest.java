package org.smsgw.agent.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

public class SendFailuresTest {
    private static String code(int result, int errorCode) {
        return SendFailures.ofSentResult(result, errorCode).code;
    }

    @Test
    public void whenThePartLeftThePhoneThenThereIsNoFailure() {
        assertNull(SendFailures.ofSentResult(SendFailures.RESULT_OK, -1));
    }

    @Test
    public void whenThereIsNoServiceOrTheRadioIsOffThenOutOfNetwork() {
        assertEquals(SmsError.OUT_OF_NETWORK, code(4, -1));
        assertEquals(SmsError.OUT_OF_NETWORK, code(2, -1));
        assertEquals(SmsError.OUT_OF_NETWORK, code(9, -1));
        assertEquals(SmsError.OUT_OF_NETWORK, code(100, -1));
    }

    @Test
    public void whenAGenericFailureCarriesTheNetworksCauseThenTheCauseDecides() {
        assertEquals(SmsError.INVALID_NUMBER, code(1, 1));
        assertEquals(SmsError.INVALID_NUMBER, code(1, 30));
        assertEquals(SmsError.INSUFFICIENT_CREDIT, code(1, 8));
        assertEquals(SmsError.BLACKLISTED, code(1, 21));
        assertEquals(SmsError.OUT_OF_NETWORK, code(1, 27));
        assertEquals(SmsError.DEVICE_ERROR, code(1, -1));
        assertEquals(SmsError.DEVICE_ERROR, code(1, 111));
        assertTrue(SendFailures.ofSentResult(1, 8).message.contains("network cause 8"));
    }

    @Test
    public void whenAndroidRefusesThenThePhonesCausesMap() {
        assertEquals(SmsError.DEVICE_ERROR, code(5, -1)); // LIMIT_EXCEEDED
        assertTrue(SendFailures.ofSentResult(5, -1).message.contains("limit"));
        assertEquals(SmsError.BLACKLISTED, code(6, -1)); // FDN
        assertEquals(SmsError.BLACKLISTED, code(8, -1)); // short code never allowed
        assertEquals(SmsError.DEVICE_ERROR, code(3, -1)); // NULL_PDU
        assertEquals(SmsError.INVALID_NUMBER, code(11, -1)); // INVALID_ARGUMENTS
        assertEquals(SmsError.DEVICE_ERROR, code(120, -1)); // no SIM
        assertEquals(SmsError.DEVICE_ERROR, code(999, -1));
    }

    @Test
    public void whenAndroidRefusedThePartBeforeTheNetworkThenOnlyGenericFailureRadioOffNoServiceAndLimitCount() {
        assertTrue(SendFailures.refusedBeforeSending(1)); // GENERIC_FAILURE
        assertTrue(SendFailures.refusedBeforeSending(2)); // RADIO_OFF
        assertTrue(SendFailures.refusedBeforeSending(4)); // NO_SERVICE
        assertTrue(SendFailures.refusedBeforeSending(5)); // LIMIT_EXCEEDED
        assertFalse(SendFailures.refusedBeforeSending(SendFailures.RESULT_OK));
        assertFalse(SendFailures.refusedBeforeSending(3)); // NULL_PDU
        assertFalse(SendFailures.refusedBeforeSending(6)); // FDN
        assertFalse(SendFailures.refusedBeforeSending(9)); // RADIO_NOT_AVAILABLE
        assertFalse(SendFailures.refusedBeforeSending(11)); // INVALID_ARGUMENTS
        assertFalse(SendFailures.refusedBeforeSending(120)); // no SIM
    }
}
