package org.smsgw.agent.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;

import org.json.JSONObject;
import org.junit.Test;

public class ProtocolTest {
    private static final String TRACE = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

    @Test
    public void whenTheHubSaysHelloThenItsVersionDeviceAndPingIntervalAreRead() {
        HubFrame f = Protocol.parse("{\"type\":\"hello\",\"protocol\":1,\"device_id\":\"device_1\",\"ping_interval_ms\":25000}");
        assertEquals(HubFrame.Kind.HELLO, f.kind);
        assertEquals(1, f.protocol);
        assertEquals("device_1", f.deviceId);
        assertEquals(25000, f.pingIntervalMs);
        assertEquals(0, Protocol.parse("{\"type\":\"hello\",\"protocol\":1,\"device_id\":\"d\",\"ping_interval_ms\":-3}").pingIntervalMs);
    }

    @Test
    public void whenTheHubSendsAnSmsThenItsFieldsAndAWellFormedTraceparentAreKept() {
        HubFrame f = Protocol.parse("{\"type\":\"sms\",\"message_id\":\"msg_1\",\"to\":\"+33612345678\",\"text\":\"Bonjour \u00e9\","
                + "\"priority\":3,\"attempt\":2,\"traceparent\":\"" + TRACE + "\"}");
        assertEquals(HubFrame.Kind.SMS, f.kind);
        assertEquals("msg_1", f.sms.messageId);
        assertEquals("Bonjour \u00e9", f.sms.text);
        assertEquals(2, f.attempt);
        assertEquals(TRACE, f.sms.traceparent);
        assertNull(Protocol.parse("{\"type\":\"sms\",\"message_id\":\"m\",\"to\":\"+3\",\"text\":\"t\",\"traceparent\":\"nope\"}").sms.traceparent);
    }

    @Test
    public void whenAKnownFrameLacksAFieldThenItIsInvalidAndAnUnknownTypeIsOnlyUnknown() {
        assertEquals(HubFrame.Kind.INVALID, Protocol.parse("{\"type\":\"sms\",\"message_id\":\"m\",\"to\":\"+3\"}").kind);
        assertEquals(HubFrame.Kind.INVALID, Protocol.parse("{\"type\":\"sms\",\"message_id\":\"\",\"to\":\"+3\",\"text\":\"t\"}").kind);
        assertEquals(HubFrame.Kind.INVALID, Protocol.parse("{\"type\":\"report_ack\",\"message_id\":\"m\",\"status\":\"accepted\"}").kind);
        assertEquals(HubFrame.Kind.INVALID, Protocol.parse("{\"type\":\"reconnect\",\"after_ms\":-1}").kind);
        assertEquals(HubFrame.Kind.INVALID, Protocol.parse("[1,2]").kind);
        assertEquals(HubFrame.Kind.INVALID, Protocol.parse("{\"type\":3}").kind);
        assertEquals(HubFrame.Kind.UNKNOWN, Protocol.parse("{\"type\":\"config\",\"x\":1}").kind);
        StringBuilder longId = new StringBuilder();
        for (int i = 0; i < 201; i++) longId.append('x');
        assertEquals(HubFrame.Kind.INVALID,
                Protocol.parse("{\"type\":\"sms\",\"message_id\":\"" + longId + "\",\"to\":\"+3\",\"text\":\"t\"}").kind);
    }

    @Test
    public void whenTheHubAcknowledgesOrAsksToReconnectThenTheFieldsAreRead() {
        HubFrame ack = Protocol.parse("{\"type\":\"report_ack\",\"message_id\":\"msg_1\",\"status\":\"delivered\"}");
        assertEquals(HubFrame.Kind.REPORT_ACK, ack.kind);
        assertEquals("delivered", ack.status);
        assertEquals(7000, Protocol.parse("{\"type\":\"reconnect\",\"after_ms\":7000}").afterMs);
    }

    @Test
    public void whenTheAgentAcknowledgesAndReportsThenTheFramesCarryWhatTheProtocolSays() throws Exception {
        JSONObject ack = new JSONObject(Protocol.ack("msg_1", TRACE));
        assertEquals("ack", ack.getString("type"));
        assertEquals(TRACE, ack.getString("traceparent"));
        assertFalse(new JSONObject(Protocol.ack("msg_1", null)).has("traceparent"));

        JSONObject failed = new JSONObject(Protocol.report(new Report("msg_1", Report.FAILED, 1700000000123L,
                new SmsError(SmsError.OUT_OF_NETWORK, "no service"), null)));
        assertEquals("report", failed.getString("type"));
        assertEquals("failed", failed.getString("status"));
        assertEquals("2023-11-14T22:13:20.123Z", failed.getString("at"));
        assertEquals("OUT_OF_NETWORK", failed.getJSONObject("error").getString("code"));
        assertFalse(new JSONObject(Protocol.report(new Report("m", Report.SENT, 0, null, null))).has("error"));
    }
}
