package org.smsgw.agent.core;

import static org.junit.Assert.assertEquals;

import java.io.File;
import org.json.JSONObject;
import org.junit.After;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Protocol 7 through the core: the digest goes after each hello of a hub of protocol 7, then every few minutes, never to an older hub. */
public class AgentDigestTest {
    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private final ManualLoop loop = new ManualLoop();
    private final FakeTransport transport = new FakeTransport();
    private JdbcSqlDb db;
    private Outbox outbox;

    private void start() {
        db = new JdbcSqlDb(new File(folder.getRoot(), "outbox.db").getPath());
        SqlOutboxStore store = new SqlOutboxStore(db);
        store.createSchema();
        outbox = Outbox.open(store, loop, "boot-1", SendRecord.open(store, loop));
        Agent agent = new Agent(new Credentials("https://hub", "device_1", "dtk_1", "wss://hub/v1/agent"), outbox, new RecordingSender(),
                transport, loop, loop, BackoffTest.fixed(0.5), Logger.STDERR, new Agent.Listener() {
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
        if (db != null) db.close();
    }

    private FakeTransport.Conn connected(int protocol) {
        FakeTransport.Conn c = transport.last();
        c.open();
        c.hear("{\"type\":\"hello\",\"protocol\":" + protocol + ",\"device_id\":\"device_1\",\"ping_interval_ms\":25000}");
        loop.runDue();
        return c;
    }

    /** Lets time pass while the hub keeps talking (a frame every 20 s keeps the watchdog quiet). */
    private void stayConnected(FakeTransport.Conn c, long ms) {
        for (long passed = 0; passed < ms; passed += 20000) {
            loop.advance(Math.min(20000, ms - passed));
            c.hear("{\"type\":\"keepalive_for_test\"}");
            loop.runDue();
        }
    }

    @Test
    public void whenTheHubSpeaksProtocol7ThenTheDigestGoesAfterHelloAndEveryFiveMinutesWithWhatThePhoneWasHanded() throws Exception {
        start();
        FakeTransport.Conn c = connected(7);
        assertEquals(1, c.sentOfType("digest").size());
        assertEquals(0, new JSONObject(c.sentOfType("digest").get(0)).getJSONArray("entries").length());

        c.hear("{\"type\":\"sms\",\"message_id\":\"msg_1\",\"to\":\"+33612345678\",\"text\":\"Bonjour\",\"attempt\":1}");
        loop.runDue();
        stayConnected(c, Digest.INTERVAL_MS);
        assertEquals(2, c.sentOfType("digest").size());
        JSONObject entry = new JSONObject(c.sentOfType("digest").get(1)).getJSONArray("entries").getJSONObject(0);
        assertEquals("msg_1", entry.getString("message_id"));
    }

    @Test
    public void whenTheHubSpeaksProtocol5ThenNoDigestGoes() {
        start();
        FakeTransport.Conn c = connected(5);
        stayConnected(c, Digest.INTERVAL_MS * 2);
        assertEquals(0, c.sentOfType("digest").size());
    }
}
