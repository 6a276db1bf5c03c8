package org.smsgw.agent.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import org.json.JSONObject;
import org.junit.Test;

/** The frames of expiry and not_sent (protocol 2): expires_at on sms, not_sent on failed reports, hubs of version 1 or 2. */
public class ProtocolExpiryTest {
    private static final long EXPIRES_AT = 1700000000123L; // 2023-11-14T22:13:20.123Z

    private static long expiresAtOf(String value) {
        return Protocol.parse("{\"type\":\"sms\",\"message_id\":\"msg_1\",\"to\":\"+33612345678\",\"text\":\"t\""
                + (value == null ? "" : ",\"expires_at\":" + value) + "}").sms.expiresAt;
    }

    @Test
    public void whenAnSmsCarriesExpiresAtThenItIsReadAsEpochMillisecondsWhateverTheOffset() {
        assertEquals(EXPIRES_AT, expiresAtOf("\"2023-11-14T22:13:20.123Z\""));
        assertEquals(EXPIRES_AT, expiresAtOf("\"2023-11-14T23:13:20.123+01:00\""));
        assertEquals(EXPIRES_AT, expiresAtOf("\"2023-11-14T20:43:20.123-01:30\""));
        assertEquals(EXPIRES_AT - 123, expiresAtOf("\"2023-11-14T22:13:20Z\""));
        assertEquals(EXPIRES_AT, expiresAtOf("\"2023-11-14T22:13:20.123456Z\""));
    }

    @Test
    public void whenExpiresAtIsAbsentOrMalformedThenTheSmsNeverExpiresAndIsStillAccepted() {
        assertEquals(0, expiresAtOf(null));
        assertEquals(0, expiresAtOf("null"));
        assertEquals(0, expiresAtOf("1700000000"));
        assertEquals(0, expiresAtOf("\"tomorrow\""));
        assertEquals(0, expiresAtOf("\"2023-13-14T22:13:20Z\""));
        assertEquals(0, expiresAtOf("\"2023-11-14T22:13:20\""));
        assertEquals(HubFrame.Kind.SMS,
                Protocol.parse("{\"type\":\"sms\",\"message_id\":\"m\",\"to\":\"+3\",\"text\":\"t\",\"expires_at\":\"x\"}").kind);
    }

    @Test
    public void whenTheHubSaysItsVersionThenOneToEightAreSupported() {
        assertEquals(8, Protocol.VERSION);
        assertTrue(Protocol.isSupported(1));
        assertTrue(Protocol.isSupported(2));
        assertTrue(Protocol.isSupported(3));
        assertTrue(Protocol.isSupported(4));
        assertTrue(Protocol.isSupported(5));
        assertTrue(Protocol.isSupported(6));
        assertTrue(Protocol.isSupported(7));
        assertTrue(Protocol.isSupported(8));
        assertFalse(Protocol.isSupported(9));
        assertFalse(Protocol.isSupported(0));
    }

    @Test
    public void whenAFailedReportIsNotSentThenTheFrameSaysNotSentAndOtherwiseHasNoSuchField() throws Exception {
        SmsError error = new SmsError(SmsError.OUT_OF_NETWORK, "radio off");
        JSONObject notSent = new JSONObject(Protocol.report(new Report("msg_1", Report.FAILED, EXPIRES_AT, error, true, null)));
        assertTrue(notSent.getBoolean("not_sent"));
        assertEquals("OUT_OF_NETWORK", notSent.getJSONObject("error").getString("code"));
        assertFalse(new JSONObject(Protocol.report(new Report("msg_1", Report.FAILED, EXPIRES_AT, error, null))).has("not_sent"));
        assertEquals("EXPIRED", SmsError.EXPIRED);
    }
}
