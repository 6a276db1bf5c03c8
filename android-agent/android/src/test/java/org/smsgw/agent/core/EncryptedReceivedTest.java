package org.smsgw.agent.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.util.List;
import org.json.JSONObject;
import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/**
 * Protocol 8, received SMS: with the owner's passphrase the inbox keeps only the envelope and the
 * keyword matched on the plain text, and the received frame carries both; without one, as before.
 */
public class EncryptedReceivedTest {
    private static final String PASSPHRASE = "phrase du propriétaire";

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
        transport.last().open();
        transport.last().hear("{\"type\":\"hello\",\"protocol\":8,\"device_id\":\"device_1\",\"ping_interval_ms\":25000}");
        loop.runDue();
    }

    @After
    public void close() {
        db.close();
    }

    private JSONObject lastReceivedFrame() throws Exception {
        List<String> sent = transport.last().sentOfType("received");
        return new JSONObject(sent.get(sent.size() - 1));
    }

    @Test
    public void whenAnSmsIsReceivedWithAPassphraseThenOnlyItsEnvelopeIsKeptAndSentAndItOpensToTheText() throws Exception {
        ReceivedSms sms = inbox.receive("+33612345678", "Rendez-vous à 14h", 1, loop.now(), PASSPHRASE);
        loop.runDue();
        JSONObject frame = lastReceivedFrame();
        assertEquals(sms.receivedId, frame.getString("received_id"));
        assertTrue(Envelope.isEnvelope(frame.getString("text")));
        assertEquals("Rendez-vous à 14h", Envelope.open(frame.getString("text"), PASSPHRASE));
        assertFalse(frame.has("keyword"));
        // On disk: the envelope only, never the plain text.
        for (Object[] row : db.query("SELECT body, keyword_action, keyword FROM inbox_entry")) {
            assertTrue(Envelope.isEnvelope((String) row[0]));
            assertNull(row[1]);
            assertNull(row[2]);
        }
    }

    @Test
    public void whenAnOptOutOrStartKeywordIsReceivedWithAPassphraseThenTheFrameCarriesTheKeywordBesideTheEnvelope() throws Exception {
        inbox.receive("+33612345678", "  arrêt. ", 0, loop.now(), PASSPHRASE);
        loop.runDue();
        JSONObject stop = lastReceivedFrame();
        assertEquals("  arrêt. ", Envelope.open(stop.getString("text"), PASSPHRASE));
        assertEquals("{\"action\":\"add\",\"keyword\":\"ARRET\"}", stop.getJSONObject("keyword").toString());

        inbox.receive("+33612345678", "Start!", 0, loop.now(), PASSPHRASE);
        loop.runDue();
        JSONObject start = lastReceivedFrame();
        assertEquals("remove", start.getJSONObject("keyword").getString("action"));
        assertEquals("START", start.getJSONObject("keyword").getString("keyword"));
        // Kept across a restart of the app: the keyword is in the inbox table, the text sealed.
        assertEquals("ARRET", new Inbox(db).pending().get(0).keyword);
    }

    @Test
    public void whenNoPassphraseIsSetThenTheTextGoesInClearAndTheKeywordIsLeftToThePlatform() throws Exception {
        inbox.receive("+33612345678", "STOP", 0, loop.now(), null);
        loop.runDue();
        JSONObject frame = lastReceivedFrame();
        assertEquals("STOP", frame.getString("text"));
        assertFalse(frame.has("keyword"));
    }

    @Test
    public void whenTextsAreFoldedThenTheyMatchAsTheMessageServiceMatchesThem() {
        assertEquals("STOP", EncryptedTexts.keywordOf("stop"));
        assertEquals("STOP", EncryptedTexts.keywordOf("Stop !"));
        assertEquals("STOPALL", EncryptedTexts.keywordOf("\u00a0StopAll.\n"));
        assertEquals("ARRET", EncryptedTexts.keywordOf("Arrêt"));
        assertEquals("STOP PLEASE", EncryptedTexts.keywordOf("stop   please"));
        assertNull(EncryptedTexts.forReceiving("stop please", PASSPHRASE).keyword);
        assertNull(EncryptedTexts.forReceiving("STOP!!", PASSPHRASE).keyword);
        // U+0085 is no space to the message service: the final stop is not at the end.
        assertNull(EncryptedTexts.forReceiving("STOP.\u0085", PASSPHRASE).keyword);
        assertEquals("UNSUBSCRIBE", EncryptedTexts.forReceiving("unsubscribe", PASSPHRASE).keyword);
    }

    @Test
    public void whenADatabaseOfAnOlderSchemaIsUpgradedThenItsReceivedSmsStayAndGoWithoutKeyword() throws Exception {
        JdbcSqlDb old = new JdbcSqlDb(new File(folder.getRoot(), "old.db").getPath());
        try {
            for (String statement : OldSchemas.VERSION_3) old.execute(statement);
            old.execute("INSERT INTO inbox_entry (received_id, sender, body, sim, received_at) VALUES ('r1', '+33611111111', 'hi', 1, 3)");
            new SqlOutboxStore(old).upgrade(3);
            ReceivedSms kept = new Inbox(old).pending().get(0);
            assertEquals("hi", kept.text);
            assertNull(kept.keywordAction);
            assertFalse(new JSONObject(Protocol.received(kept)).has("keyword"));
        } finally {
            old.close();
        }
    }
}
