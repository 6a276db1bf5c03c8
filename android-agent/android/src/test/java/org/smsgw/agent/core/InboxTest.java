package org.smsgw.agent.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.util.List;
import org.junit.After;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** The inbox on a real SQLite file with the app's SQL: kept across a restart, forgotten after the ack, the schema upgrade. */
public class InboxTest {
    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private JdbcSqlDb db;

    @After
    public void close() {
        if (db != null) db.close();
    }

    private Inbox open(boolean create) {
        if (db != null) db.close();
        db = new JdbcSqlDb(new File(folder.getRoot(), "outbox.db").getPath());
        if (create) new SqlOutboxStore(db).createSchema();
        return new Inbox(db);
    }

    @Test
    public void whenAnSmsIsReceivedThenItGetsAUuidAndSurvivesAReopenUntilItIsAcknowledged() {
        Inbox inbox = open(true);
        ReceivedSms first = inbox.receive("+33612345678", "Bonjour 👋", 2, 1000);
        ReceivedSms second = inbox.receive("+33687654321", "STOP", 0, 2000);
        assertTrue(first.receivedId.matches("^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$"));
        assertNotEquals(first.receivedId, second.receivedId);

        inbox = open(false);
        List<ReceivedSms> pending = inbox.pending();
        assertEquals(2, pending.size());
        assertEquals(first.receivedId, pending.get(0).receivedId);
        assertEquals("+33612345678", pending.get(0).from);
        assertEquals("Bonjour 👋", pending.get(0).text);
        assertEquals(2, pending.get(0).sim);
        assertEquals(1000, pending.get(0).receivedAt);
        assertEquals(0, pending.get(1).sim);

        inbox.ack(first.receivedId);
        inbox.ack(first.receivedId);
        inbox = open(false);
        assertEquals(1, inbox.pending().size());
        assertEquals(second.receivedId, inbox.pending().get(0).receivedId);
    }

    @Test
    public void whenAVersion2DatabaseIsUpgradedThenItsOutboxStaysAndTheInboxWorks() {
        db = new JdbcSqlDb(new File(folder.getRoot(), "outbox.db").getPath());
        SqlOutboxStore store = new SqlOutboxStore(db);
        for (String statement : OldSchemas.VERSION_2) db.execute(statement);
        db.execute("INSERT INTO outbox_done (message_id) VALUES ('msg_done')");
        store.upgrade(2);

        Inbox inbox = new Inbox(db);
        ReceivedSms sms = inbox.receive("+33612345678", "hello", 1, 5);
        assertEquals(sms.receivedId, inbox.pending().get(0).receivedId);
        assertEquals(1, db.query("SELECT message_id FROM outbox_done").size());
        assertEquals(6, SqlOutboxStore.SCHEMA_VERSION);
    }

    @Test
    public void whenTheFrameIsBuiltThenItCarriesTheFieldsAndLeavesOutAnUnknownSim() throws Exception {
        org.json.JSONObject frame = new org.json.JSONObject(Protocol.received(new ReceivedSms("r1", "+336", "t", 0, 0)));
        assertEquals("received", frame.getString("type"));
        assertEquals("r1", frame.getString("received_id"));
        assertEquals("+336", frame.getString("from"));
        assertEquals("t", frame.getString("text"));
        assertEquals("1970-01-01T00:00:00.000Z", frame.getString("received_at"));
        assertTrue(!frame.has("sim"));
        assertEquals(3, new org.json.JSONObject(Protocol.received(new ReceivedSms("r1", "+336", "t", 3, 0))).getInt("sim"));
    }
}
