package org.smsgw.agent.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.File;
import org.json.JSONObject;
import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** The hub's received_retry through the core (protocol 5): it holds every received SMS back until its after_ms has passed. */
public class AgentReceivedRetryTest {
    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private final ManualLoop loop = new ManualLoop();
    private final FakeTransport transport = new FakeTransport();
    private JdbcSqlDb db;
    private Inbox inbox;
    private Agent agent;

    @Before
    public void start() {
        db = new JdbcSqlDb(new File(folder.getRoot(), "outbox.db").getPath());
        SqlOutboxStore store = new SqlOutboxStore(db);
        store.createSchema();
        inbox = new Inbox(db);
        agent = new Agent(new Credentials("https://hub", "device_1", "dtk_1", "wss://hub/v1/agent"), Outbox.open(store, loop, "boot-1"),
                inbox, new RecordingSender(), transport, loop, loop, BackoffTest.fixed(0.5), Logger.STDERR, new Agent.Listener() {
                    @Override
                    public void onStatus(Agent.Status status) {
                    }

                    @Override
                    public void onFatal(HubClient.Fatal f, String message) {
                    }
                }, 1000);
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
        c.hear("{\"type\":\"hello\",\"protocol\":5,\"device_id\":\"device_1\",\"ping_interval_ms\":25000}");
        loop.runDue();
        return c;
    }

    private static String retry(String receivedId, long afterMs) {
        return "{\"type\":\"received_retry\",\"received_id\":\"" + receivedId + "\",\"after_ms\":" + afterMs + "}";
    }

    @Test
    public void whenTheHubSaysReceivedRetryThenNoReceivedSmsGoesUntilAfterMsNewOnesIncludedThenAllGo() throws Exception {
        FakeTransport.Conn c = connected();
        ReceivedSms first = inbox.receive("+33612345678", "un", 1, loop.now());
        loop.runDue();
        assertEquals(1, c.sentOfType("received").size());

        c.hear(retry(first.receivedId, 5000));
        loop.runDue();
        inbox.receive("+33612345679", "deux", 1, loop.now());
        loop.runDue();
        // The resend every second and the new SMS both wait.
        loop.advance(4900);
        assertEquals(1, c.sentOfType("received").size());
        assertEquals(2, inbox.pending().size());

        loop.advance(200);
        assertEquals(3, c.sentOfType("received").size());
        assertEquals("un", new JSONObject(c.sentOfType("received").get(1)).getString("text"));
        assertEquals("deux", new JSONObject(c.sentOfType("received").get(2)).getString("text"));
    }

    @Test
    public void whenTheConnectionDropsDuringAHoldThenTheNextHelloWaitsForItToo() throws Exception {
        FakeTransport.Conn c = connected();
        ReceivedSms sms = inbox.receive("+33612345678", "un", 0, loop.now());
        loop.runDue();
        c.hear(retry(sms.receivedId, 30000));
        loop.runDue();

        c.end(1006, 0);
        loop.advance(5000);
        FakeTransport.Conn c2 = connected();
        assertEquals(0, c2.sentOfType("received").size());

        loop.advance(24900);
        assertEquals(0, c2.sentOfType("received").size());
        loop.advance(200);
        assertEquals(1, c2.sentOfType("received").size());
        c2.hear("{\"type\":\"received_ack\",\"received_id\":\"" + sms.receivedId + "\"}");
        loop.runDue();
        assertTrue(inbox.pending().isEmpty());
    }

    @Test
    public void whenAHubAsksForMoreThanAnHourThenTheAppWaitsAnHour() throws Exception {
        FakeTransport.Conn c = connected();
        ReceivedSms sms = inbox.receive("+33612345678", "un", 0, loop.now());
        loop.runDue();
        c.hear(retry(sms.receivedId, 1000000000000L));
        loop.runDue();

        // The hub keeps the connection alive meanwhile (any frame will do).
        for (long waited = 0; waited < HubClient.MAX_RECEIVED_HOLD_MS - 50000; waited += 50000) {
            loop.advance(50000);
            c.hear("{\"type\":\"newer_frame\"}");
        }
        loop.advance(49000);
        assertEquals(1, c.sentOfType("received").size());
        loop.advance(1500);
        assertEquals(2, c.sentOfType("received").size());
    }

    @Test
    public void whenReceivedRetryHasNoIdOrANegativeWaitThenItIsInvalid() {
        assertEquals(HubFrame.Kind.INVALID, Protocol.parse("{\"type\":\"received_retry\",\"after_ms\":10}").kind);
        assertEquals(HubFrame.Kind.INVALID, Protocol.parse("{\"type\":\"received_retry\",\"received_id\":\"r\",\"after_ms\":-1}").kind);
        HubFrame f = Protocol.parse("{\"type\":\"received_retry\",\"received_id\":\"r\",\"after_ms\":10}");
        assertEquals(HubFrame.Kind.RECEIVED_RETRY, f.kind);
        assertEquals("r", f.messageId);
        assertEquals(10, f.afterMs);
    }
}
