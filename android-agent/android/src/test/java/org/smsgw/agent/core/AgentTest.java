package org.smsgw.agent.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.json.JSONObject;
import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** The protocol client and the outbox together, on a fake transport and virtual time. */
public class AgentTest {
    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private final ManualLoop loop = new ManualLoop();
    private final FakeTransport transport = new FakeTransport();
    private final RecordingSender sender = new RecordingSender();
    private final List<String> fatal = new ArrayList<String>();
    private final List<HubClient.State> states = new ArrayList<HubClient.State>();
    private JdbcSqlDb db;
    private Outbox outbox;
    private Agent agent;

    @Before
    public void start() {
        db = new JdbcSqlDb(new File(folder.getRoot(), "outbox.db").getPath());
        startAgent();
    }

    private void startAgent() {
        SqlOutboxStore store = new SqlOutboxStore(db);
        store.createSchema();
        outbox = Outbox.open(store, loop, "boot-1");
        agent = new Agent(new Credentials("https://hub", "device_1", "dtk_1", "wss://hub/v1/agent"), outbox, sender, transport,
                loop, loop, BackoffTest.fixed(0.5), Logger.STDERR, new Agent.Listener() {
                    @Override
                    public void onStatus(Agent.Status status) {
                        if (states.isEmpty() || states.get(states.size() - 1) != status.state) states.add(status.state);
                    }

                    @Override
                    public void onFatal(HubClient.Fatal f, String message) {
                        fatal.add(f.name());
                    }
                }, HubClient.REPORT_RESEND_MS);
        agent.start();
        loop.runDue();
    }

    @After
    public void close() {
        db.close();
    }

    private FakeTransport.Conn connected() {
        FakeTransport.Conn c = transport.last();
        c.open();
        c.hear("{\"type\":\"hello\",\"protocol\":1,\"device_id\":\"device_1\",\"ping_interval_ms\":25000}");
        loop.runDue();
        return c;
    }

    private static String sms(String id) {
        return "{\"type\":\"sms\",\"message_id\":\"" + id + "\",\"to\":\"+33612345678\",\"text\":\"Bonjour\",\"priority\":3,\"attempt\":1}";
    }

    private static List<String> reportsOf(FakeTransport.Conn c) throws Exception {
        List<String> out = new ArrayList<String>();
        for (String s : c.sentOfType("report")) {
            JSONObject o = new JSONObject(s);
            out.add(o.getString("message_id") + " " + o.getString("status"));
        }
        return out;
    }

    @Test
    public void whenItConnectsThenItSendsTheTokenAndSubprotocolToTheHubsUrl() {
        FakeTransport.Conn c = transport.last();
        assertEquals("wss://hub/v1/agent", c.url);
        assertEquals("dtk_1", c.token);
        connected();
        assertEquals(HubClient.State.CONNECTED, states.get(states.size() - 1));
    }

    @Test
    public void whenAnSmsArrivesThenItIsInTheOutboxBeforeTheAckAndHandedToAndroidOnce() throws Exception {
        FakeTransport.Conn c = connected();
        c.hear(sms("msg_1"));
        loop.runDue();
        assertEquals(1, c.sentOfType("ack").size());
        assertNotNull(outbox.get("msg_1"));
        assertEquals(1, sender.count("msg_1"));
        c.hear(sms("msg_1"));
        loop.runDue();
        assertEquals("offered again: acknowledged again", 2, c.sentOfType("ack").size());
        assertEquals("but never sent twice", 1, sender.count("msg_1"));
    }

    @Test
    public void whenTheOutboxCannotWriteThenNoAckIsSent() {
        FakeTransport.Conn c = connected();
        db.close();
        c.hear(sms("msg_1"));
        loop.runDue();
        assertTrue(c.sentOfType("ack").isEmpty());
        assertEquals(0, sender.count("msg_1"));
        db = new JdbcSqlDb(new File(folder.getRoot(), "outbox.db").getPath());
    }

    @Test
    public void whenAndroidReportsThenReportsGoToTheHubAndAgainEvery10SecondsUntilAcknowledged() throws Exception {
        FakeTransport.Conn c = connected();
        c.hear(sms("msg_1"));
        loop.runDue();
        SmsResults.sent(outbox, "msg_1", 0, SendFailures.RESULT_OK, -1);
        loop.runDue();
        assertEquals(java.util.Arrays.asList("msg_1 sent"), reportsOf(c));
        loop.advance(HubClient.REPORT_RESEND_MS);
        assertEquals(java.util.Arrays.asList("msg_1 sent", "msg_1 sent"), reportsOf(c));
        c.hear("{\"type\":\"report_ack\",\"message_id\":\"msg_1\",\"status\":\"sent\"}");
        loop.advance(3 * HubClient.REPORT_RESEND_MS);
        assertEquals(2, reportsOf(c).size());
        SmsResults.delivered(outbox, "msg_1", 0, "3gpp", StatusReportsTest.statusReport(0), 0);
        loop.runDue();
        assertEquals("msg_1 delivered", reportsOf(c).get(2));
        c.hear("{\"type\":\"report_ack\",\"message_id\":\"msg_1\",\"status\":\"delivered\"}");
        loop.runDue();
        assertNull("finished and acknowledged: it leaves the outbox", outbox.get("msg_1"));
    }

    @Test
    public void whenTheConnectionDropsThenItReconnectsWithBackoffAndSendsWhatWasNotAcknowledged() throws Exception {
        FakeTransport.Conn c = connected();
        c.hear(sms("msg_1"));
        loop.runDue();
        c.end(1006, 0);
        loop.runDue();
        SmsResults.sent(outbox, "msg_1", 0, SendFailures.RESULT_OK, -1);
        loop.runDue();
        assertTrue(reportsOf(c).isEmpty());
        assertEquals(HubClient.State.WAITING, states.get(states.size() - 1));
        // Attempt 0 with the random at 0.5: half of one second.
        loop.advance(499);
        assertEquals(1, transport.connections.size());
        loop.advance(1);
        assertEquals(2, transport.connections.size());
        FakeTransport.Conn again = connected();
        assertEquals(java.util.Arrays.asList("msg_1 sent"), reportsOf(again));
        // The hub re-offers an SMS whose ack it never recorded: acknowledged, not sent again.
        again.hear(sms("msg_1"));
        loop.runDue();
        assertEquals(1, again.sentOfType("ack").size());
        assertEquals(1, sender.count("msg_1"));
    }

    @Test
    public void whenAttemptsKeepFailingThenTheWaitsGrowUpToTheCapAndAStableConnectionResetsThem() {
        List<Long> waits = new ArrayList<Long>();
        for (int i = 0; i < 8; i++) {
            transport.last().end(1006, 0);
            loop.runDue();
            long wait = 0;
            int before = transport.connections.size();
            while (transport.connections.size() == before) {
                loop.advance(100);
                wait += 100;
            }
            waits.add(wait);
        }
        assertEquals(java.util.Arrays.asList(500L, 1000L, 2000L, 4000L, 8000L, 16000L, 30000L, 30000L), waits);
        connected();
        loop.advance(Backoff.STABLE_CONNECTION_MS);
        transport.last().end(1006, 0);
        loop.runDue();
        loop.advance(500);
        assertEquals(10, transport.connections.size());
    }

    @Test
    public void whenTheHubAsksToReconnectThenItClosesAndWaitsTheTimeAsked() {
        FakeTransport.Conn c = connected();
        c.hear("{\"type\":\"reconnect\",\"after_ms\":7000}");
        loop.runDue();
        assertTrue(c.closed);
        assertEquals(1000, c.closeCode);
        c.end(1012, 0);
        loop.advance(6999);
        assertEquals(1, transport.connections.size());
        loop.advance(1);
        assertEquals(2, transport.connections.size());
    }

    @Test
    public void whenTheHubRefusesTheTokenThenTheAgentStopsAndAsksToPairAgain() {
        transport.last().end(1006, 401);
        loop.advance(120000);
        assertEquals(java.util.Arrays.asList("UNAUTHORIZED"), fatal);
        assertEquals(1, transport.connections.size());
    }

    @Test
    public void whenAnotherConnectionTakesOverThenTheAgentStopsRatherThanTakingItBack() {
        connected().end(Protocol.CLOSE_REPLACED, 0);
        loop.advance(120000);
        assertEquals(java.util.Arrays.asList("REPLACED"), fatal);
        assertEquals(1, transport.connections.size());
    }

    @Test
    public void whenTheHubFallsSilentThenTheConnectionIsDroppedAfterTwoPingIntervals() {
        FakeTransport.Conn c = connected();
        loop.advance(25000);
        c.listener.onPing(c);
        loop.advance(54999);
        assertFalse(c.aborted);
        loop.advance(1);
        assertTrue(c.aborted);
    }

    @Test
    public void whenTheNetworkChangesThenAWaitingAgentConnectsAtOnceAndAConnectedOneChecksWithAPing() {
        transport.last().end(1006, 0);
        loop.runDue();
        agent.networkChanged();
        loop.runDue();
        assertEquals(2, transport.connections.size());
        FakeTransport.Conn c = connected();
        agent.networkChanged();
        loop.runDue();
        assertEquals(1, c.pings);
        loop.advance(HubClient.PROBE_TIMEOUT_MS);
        assertTrue("no pong: the old network's socket is dropped", c.aborted);
    }

    @Test
    public void whenTheAppRestartsThenAcceptedSmsAreSentAndInterruptedOnesReportedFailed() throws Exception {
        connected();
        outbox.accept(new Sms("msg_waiting", "+33612345678", "t", null));
        outbox.accept(new Sms("msg_cut", "+33612345678", "t", null));
        outbox.markSending("msg_cut", 1);
        agent.stop();
        loop.runDue();
        int sentBefore = sender.sent.size();
        startAgent();
        FakeTransport.Conn c = connected();
        assertEquals(1, sender.count("msg_waiting"));
        assertEquals(0, sender.count("msg_cut"));
        assertEquals(sentBefore + 1, sender.sent.size());
        assertEquals(java.util.Arrays.asList("msg_cut failed"), reportsOf(c));
    }

    @Test
    public void whenThePhoneRefusesAnSmsThenItIsReportedFailedWithTheCause() throws Exception {
        FakeTransport.Conn c = connected();
        sender.refuseWith = new SmsError(SmsError.INVALID_NUMBER, "no");
        c.hear(sms("msg_1"));
        loop.runDue();
        assertEquals(java.util.Arrays.asList("msg_1 failed"), reportsOf(c));
        assertEquals("INVALID_NUMBER", new JSONObject(c.sentOfType("report").get(0)).getJSONObject("error").getString("code"));
    }

    @Test
    public void whenAFrameIsUnknownOrInvalidThenItIsIgnoredAndTheConnectionStays() {
        FakeTransport.Conn c = connected();
        c.hear("{\"type\":\"future\"}");
        c.hear("not json");
        c.hear("{\"type\":\"sms\"}");
        loop.runDue();
        assertFalse(c.closed);
        assertTrue(c.sentOfType("ack").isEmpty());
    }

}
