package org.smsgw.agent.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.util.List;
import org.json.JSONObject;
import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Received SMS through the core (protocol 3): agent_hello, received SMS sent at once, after each hello and until received_ack. */
public class AgentReceivedSmsTest {
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
        c.hear("{\"type\":\"hello\",\"protocol\":3,\"device_id\":\"device_1\",\"ping_interval_ms\":25000}");
        loop.runDue();
        return c;
    }

    @Test
    public void whenTheHubSaysHelloThenAgentHelloIsTheFirstFrameWithTheProtocolAndTheAndroidDriver() throws Exception {
        FakeTransport.Conn c = connected();
        JSONObject first = new JSONObject(c.sent.get(0));
        assertEquals("agent_hello", first.getString("type"));
        assertEquals(Protocol.VERSION, first.getInt("protocol"));
        assertEquals("android", first.getString("driver"));
    }

    @Test
    public void whenAnSmsIsReceivedThenItIsSentAtOnceAgainUntilAckedAndAfterAReconnectThenNoMore() throws Exception {
        FakeTransport.Conn c = connected();
        ReceivedSms sms = inbox.receive("+33612345678", "STOP", 1, loop.now());
        loop.runDue();
        List<String> sent = c.sentOfType("received");
        assertEquals(1, sent.size());
        JSONObject frame = new JSONObject(sent.get(0));
        assertEquals(sms.receivedId, frame.getString("received_id"));
        assertEquals("STOP", frame.getString("text"));
        assertEquals(1, frame.getInt("sim"));

        loop.advance(1000);
        assertEquals(2, c.sentOfType("received").size());

        c.end(1006, 0);
        loop.advance(60000);
        FakeTransport.Conn c2 = connected();
        assertEquals(1, c2.sentOfType("received").size());
        assertEquals(sent.get(0), c2.sentOfType("received").get(0));

        c2.hear("{\"type\":\"received_ack\",\"received_id\":\"" + sms.receivedId + "\"}");
        loop.runDue();
        assertTrue(inbox.pending().isEmpty());
        loop.advance(5000);
        assertEquals(1, c2.sentOfType("received").size());
    }

    @Test
    public void whenAnSmsArrivedWhileDisconnectedThenItGoesAfterTheHello() throws Exception {
        ReceivedSms sms = inbox.receive("+33612345678", "hors ligne", 0, loop.now());
        loop.runDue();
        FakeTransport.Conn c = connected();
        List<String> sent = c.sentOfType("received");
        assertEquals(1, sent.size());
        assertEquals(sms.receivedId, new JSONObject(sent.get(0)).getString("received_id"));
        assertTrue(!new JSONObject(sent.get(0)).has("sim"));
    }
}
