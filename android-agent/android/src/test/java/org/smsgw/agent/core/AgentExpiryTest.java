package org.smsgw.agent.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import org.json.JSONObject;
import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Expiry and not_sent through the whole core (protocol 2): the sms frame's expiry, not_sent on the wire and on resends, a hub of version 1 or 2. */
public class AgentExpiryTest {
    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private final ManualLoop loop = new ManualLoop();
    private final FakeTransport transport = new FakeTransport();
    private final RecordingSender sender = new RecordingSender();
    private final List<String> warnings = new ArrayList<String>();
    private JdbcSqlDb db;
    private Outbox outbox;
    private Agent agent;

    @Before
    public void start() {
        db = new JdbcSqlDb(new File(folder.getRoot(), "outbox.db").getPath());
        startAgent();
    }

    @After
    public void close() {
        db.close();
    }

    private void startAgent() {
        SqlOutboxStore store = new SqlOutboxStore(db);
        store.createSchema();
        outbox = Outbox.open(store, loop, "boot-1");
        Logger log = new Logger() {
            @Override
            public void info(String message) {
            }

            @Override
            public void warn(String message, Throwable error) {
                warnings.add(message);
            }
        };
        agent = new Agent(new Credentials("https://hub", "device_1", "dtk_1", "wss://hub/v1/agent"), outbox, sender, transport,
                loop, loop, BackoffTest.fixed(0.5), log, new Agent.Listener() {
                    @Override
                    public void onStatus(Agent.Status status) {
                    }

                    @Override
                    public void onFatal(HubClient.Fatal f, String message) {
                    }
                }, HubClient.REPORT_RESEND_MS);
        agent.start();
        loop.runDue();
    }

    private FakeTransport.Conn connected(int protocol) {
        FakeTransport.Conn c = transport.last();
        c.open();
        c.hear("{\"type\":\"hello\",\"protocol\":" + protocol + ",\"device_id\":\"device_1\",\"ping_interval_ms\":25000}");
        loop.runDue();
        return c;
    }

    private String sms(String id, long expiresInMs) {
        return "{\"type\":\"sms\",\"message_id\":\"" + id + "\",\"to\":\"+33612345678\",\"text\":\"Bonjour\",\"attempt\":1"
                + ",\"expires_at\":\"" + Times.rfc3339(loop.now() + expiresInMs) + "\"}";
    }

    private static List<JSONObject> reports(FakeTransport.Conn c, String messageId) throws Exception {
        List<JSONObject> out = new ArrayList<JSONObject>();
        for (String s : c.sentOfType("report")) {
            JSONObject o = new JSONObject(s);
            if (o.getString("message_id").equals(messageId)) out.add(o);
        }
        return out;
    }

    @Test
    public void whenAnSmsArrivesBeforeItsExpiryThenItIsSentAndItsExpiryKept() {
        FakeTransport.Conn c = connected(2);
        c.hear(sms("msg_1", 60000));
        loop.runDue();
        assertEquals(1, c.sentOfType("ack").size());
        assertEquals(1, sender.count("msg_1"));
        assertEquals(loop.now() + 60000, outbox.get("msg_1").expiresAt);
    }

    @Test
    public void whenAnSmsArrivesPastItsExpiryThenItIsAcknowledgedNotSentAndReportedExpiredNotSent() throws Exception {
        FakeTransport.Conn c = connected(2);
        c.hear(sms("msg_1", -1));
        loop.runDue();
        assertEquals(1, c.sentOfType("ack").size());
        assertEquals(0, sender.count("msg_1"));
        List<JSONObject> r = reports(c, "msg_1");
        assertEquals(1, r.size());
        assertEquals("failed", r.get(0).getString("status"));
        assertEquals("EXPIRED", r.get(0).getJSONObject("error").getString("code"));
        assertTrue(r.get(0).getBoolean("not_sent"));
    }

    @Test
    public void whenTheAppRestartsPastTheExpiryOfAnAcceptedSmsThenItIsNotSentAndReportedExpiredNotSent() throws Exception {
        connected(2);
        outbox.accept(new Sms("msg_1", "+33612345678", "t", null, loop.now() + 1000));
        agent.stop();
        loop.runDue();
        loop.advance(2000);
        startAgent();
        FakeTransport.Conn c = connected(2);
        assertEquals(0, sender.count("msg_1"));
        List<JSONObject> r = reports(c, "msg_1");
        assertEquals(1, r.size());
        assertEquals("EXPIRED", r.get(0).getJSONObject("error").getString("code"));
        assertTrue(r.get(0).getBoolean("not_sent"));
    }

    @Test
    public void whenTheRadioIsOffThenTheFailureIsReportedNotSentAndEveryResendSaysItToo() throws Exception {
        FakeTransport.Conn c = connected(2);
        c.hear(sms("msg_1", 60000));
        loop.runDue();
        SmsResults.sent(outbox, "msg_1", 0, 2, -1); // RADIO_OFF
        loop.runDue();
        loop.advance(HubClient.REPORT_RESEND_MS);
        List<JSONObject> r = reports(c, "msg_1");
        assertTrue("sent, then sent again without report_ack", r.size() >= 2);
        for (JSONObject o : r) {
            assertEquals("OUT_OF_NETWORK", o.getJSONObject("error").getString("code"));
            assertTrue(o.getBoolean("not_sent"));
        }
        c.hear("{\"type\":\"report_ack\",\"message_id\":\"msg_1\",\"status\":\"failed\"}");
        loop.runDue();
        assertTrue(outbox.pendingReports().isEmpty());
    }

    @Test
    public void whenAnSmsLeftSendingIsFailedAtRestartThenItsReportHasNoNotSent() throws Exception {
        connected(2);
        outbox.accept(new Sms("msg_cut", "+33612345678", "t", null));
        outbox.markSending("msg_cut", 1);
        agent.stop();
        loop.runDue();
        startAgent();
        FakeTransport.Conn c = connected(2);
        List<JSONObject> r = reports(c, "msg_cut");
        assertEquals("DEVICE_ERROR", r.get(0).getJSONObject("error").getString("code"));
        assertFalse(r.get(0).has("not_sent"));
    }

    @Test
    public void whenTheHubSpeaksVersionOneToEightThenNoVersionWarningAndOtherwiseOne() {
        connected(1);
        connected(2);
        connected(3);
        connected(4);
        connected(5);
        connected(6);
        connected(7);
        connected(8);
        for (String w : warnings) assertFalse(w, w.contains("protocol"));
        connected(9);
        boolean warned = false;
        for (String w : warnings) warned |= w.contains("speaks protocol 9");
        assertTrue(warned);
    }
}
