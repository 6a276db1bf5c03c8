package org.smsgw.agent.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.json.JSONObject;
import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Protocol 8 through the core: an envelope opened before sending, or refused DECRYPTION_FAILED / MESSAGE_TOO_LONG. */
public class AgentEncryptedTextsTest {
    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private final ManualLoop loop = new ManualLoop();
    private final FakeTransport transport = new FakeTransport();
    private final RecordingSender sender = new RecordingSender();
    private JdbcSqlDb db;
    private Agent agent;

    @Before
    public void start() {
        db = new JdbcSqlDb(new File(folder.getRoot(), "outbox.db").getPath());
        SqlOutboxStore store = new SqlOutboxStore(db);
        store.createSchema();
        Outbox outbox = Outbox.open(store, loop, "boot-1");
        agent = new Agent(new Credentials("https://hub", "device_1", "dtk_1", "wss://hub/v1/agent"), outbox, sender, transport,
                loop, loop, BackoffTest.fixed(0.5), Logger.STDERR, new Agent.Listener() {
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

    @After
    public void close() {
        db.close();
    }

    private FakeTransport.Conn connected() {
        FakeTransport.Conn c = transport.last();
        c.open();
        c.hear("{\"type\":\"hello\",\"protocol\":8,\"device_id\":\"device_1\",\"ping_interval_ms\":25000}");
        loop.runDue();
        return c;
    }

    private static String sms(String id, String text) throws Exception {
        return new JSONObject().put("type", "sms").put("message_id", id).put("to", "+33612345678").put("text", text).put("attempt", 1)
                .toString();
    }

    private static JSONObject onlyReport(FakeTransport.Conn c, String messageId) throws Exception {
        List<JSONObject> out = new ArrayList<JSONObject>();
        for (String s : c.sentOfType("report")) {
            JSONObject o = new JSONObject(s);
            if (o.getString("message_id").equals(messageId)) out.add(o);
        }
        assertEquals(1, out.size());
        return out.get(0);
    }

    @Test
    public void whenTheHubSaysHello_thenTheAgentAnnouncesProtocol8() throws Exception {
        FakeTransport.Conn c = connected();
        assertEquals(8, new JSONObject(c.sentOfType("agent_hello").get(0)).getInt("protocol"));
    }

    @Test
    public void whenAnEnvelopeComesWithTheRightPassphrase_thenThePlainTextIsSent() throws Exception {
        agent.setPassphrase("phrase du propriétaire");
        FakeTransport.Conn c = connected();
        c.hear(sms("msg_1", Envelope.seal("Rendez-vous à 14h", "phrase du propriétaire", 10, 8, 1, new byte[16], new byte[12])));
        loop.runDue();
        assertEquals(Collections.singletonList("Rendez-vous à 14h"), sender.texts);
    }

    @Test
    public void whenAnEnvelopeDoesNotOpen_thenNothingIsSentAndItIsFailedDecryptionFailedNotSent() throws Exception {
        agent.setPassphrase("une autre phrase");
        FakeTransport.Conn c = connected();
        c.hear(sms("msg_1", Envelope.seal("secret", "phrase du propriétaire", 10, 8, 1, new byte[16], new byte[12])));
        c.hear(sms("msg_2", "en clair"));
        loop.runDue();
        assertEquals(Collections.singletonList("en clair"), sender.texts);
        JSONObject r = onlyReport(c, "msg_1");
        assertEquals("failed", r.getString("status"));
        assertTrue(r.getBoolean("not_sent"));
        assertEquals("DECRYPTION_FAILED", r.getJSONObject("error").getString("code"));
    }

    @Test
    public void whenThePlainTextIsOver1600Characters_thenItIsFailedMessageTooLongNotSent() throws Exception {
        agent.setPassphrase("p");
        FakeTransport.Conn c = connected();
        StringBuilder longText = new StringBuilder();
        for (int i = 0; i < 1601; i++) longText.append('a');
        c.hear(sms("msg_1", Envelope.seal(longText.toString(), "p", 10, 8, 1, new byte[16], new byte[12])));
        loop.runDue();
        assertTrue(sender.sent.isEmpty());
        assertEquals("MESSAGE_TOO_LONG", onlyReport(c, "msg_1").getJSONObject("error").getString("code"));
    }
}
