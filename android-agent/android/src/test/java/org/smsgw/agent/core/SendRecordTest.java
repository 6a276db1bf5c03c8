package org.smsgw.agent.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.After;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Protocol 7 in the core: the send record beside the outbox, per part, on SQLite, and its digest frames. */
public class SendRecordTest {
    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private final ManualLoop clock = new ManualLoop();
    private JdbcSqlDb db;
    private SendRecord record;

    @After
    public void close() {
        if (db != null) db.close();
    }

    private Outbox open(boolean create) {
        if (db != null) db.close();
        db = new JdbcSqlDb(new File(folder.getRoot(), "outbox.db").getPath());
        SqlOutboxStore store = new SqlOutboxStore(db);
        if (create) store.createSchema();
        record = SendRecord.open(store, clock);
        return Outbox.open(store, clock, "boot-1", record);
    }

    @Test
    public void whenAnSmsOfTwoPartsIsSentDeliveredAndAcknowledgedThenTheRecordKeepsItPerPartAfterTheOutboxForgotIt() {
        Outbox outbox = open(true);
        long start = clock.now();
        outbox.accept(new Sms("msg_1", "+33612345678", "Bonjour", null, 0, 2));
        outbox.markSending("msg_1", 2, 2);
        outbox.markHandedOver("msg_1");
        outbox.partSent("msg_1", 0, null);
        RecordEntry half = record.get("msg_1");
        assertEquals(OutboxEntry.SENDING, half.state);
        assertEquals(1, half.partsSent);
        clock.advance(1000);
        outbox.partSent("msg_1", 1, null);
        clock.advance(1000);
        outbox.partDelivered("msg_1", 0, Delivery.DELIVERED);
        outbox.partDelivered("msg_1", 1, Delivery.DELIVERED);
        outbox.ackReport("msg_1", Report.SENT);
        outbox.ackReport("msg_1", Report.DELIVERED);
        assertNull(outbox.get("msg_1"));

        open(false);
        RecordEntry e = record.get("msg_1");
        assertEquals(OutboxEntry.DELIVERED, e.state);
        assertEquals(2, e.parts);
        assertEquals(2, e.partsSent);
        assertEquals(2, e.partsDelivered);
        assertEquals(0, e.partsFailed);
        assertEquals(start, e.acceptedAt);
        assertEquals(start + 1000, e.sentAt);
        assertEquals(start + 2000, e.deliveredAt);
        assertEquals(2, e.sim);
        assertEquals(start, record.coversFrom());
    }

    @Test
    public void whenThePhoneRefusesAnSmsThenTheRecordSaysFailedNotSentWithItsCause() {
        Outbox outbox = open(true);
        outbox.accept(new Sms("msg_1", "+33612345678", "Bonjour", null, 0, 3));
        outbox.refuse("msg_1", Sim.absent(3));
        RecordEntry e = record.get("msg_1");
        assertEquals(OutboxEntry.FAILED, e.state);
        assertEquals(1, e.partsFailed);
        assertTrue(e.notSent);
        assertEquals(new SmsError(SmsError.DEVICE_ERROR, "SIM 3 absente"), e.error);
    }

    @Test
    public void whenAnSmsWasHandedOverLongerAgoThanTheRecordKeepsThenItLeavesAndTheRecordCoversOnlyWhatItKeeps() {
        Outbox outbox = open(true);
        long start = clock.now();
        outbox.accept(new Sms("msg_old", "+33612345678", "Bonjour", null, 0));
        clock.advance(SendRecord.KEEP_MS / 2);
        outbox.accept(new Sms("msg_new", "+33612345678", "Bonjour", null, 0));
        clock.advance(SendRecord.KEEP_MS / 2 + 1000);
        outbox.sweep();
        List<String> ids = new ArrayList<String>();
        for (RecordEntry e : record.list()) ids.add(e.messageId);
        assertEquals(1, ids.size());
        assertEquals("msg_new", ids.get(0));
        assertEquals(start + 1000, record.coversFrom());
        open(false);
        assertNull(record.get("msg_old"));
    }

    @Test
    public void whenTheRecordHoldsMoreThanAFrameThenTheDigestIsCutIntoFramesWhoseSpansFollowEachOther() throws Exception {
        List<RecordEntry> entries = new ArrayList<RecordEntry>();
        for (int i = 0; i < 5; i++) {
            RecordEntry e = new RecordEntry();
            e.messageId = "msg_" + i;
            e.state = OutboxEntry.SENT;
            e.partsSent = 1;
            e.acceptedAt = 1000L * (i + 1);
            e.sentAt = 1000L * (i + 1) + 10;
            entries.add(e);
        }
        List<String> frames = Digest.frames(entries, 0, 60000, 2, "d1");
        assertEquals(3, frames.size());
        JSONObject first = new JSONObject(frames.get(0));
        JSONObject second = new JSONObject(frames.get(1));
        JSONObject last = new JSONObject(frames.get(2));
        assertEquals("digest", first.getString("type"));
        assertEquals(Times.rfc3339(0), first.getString("covers_from"));
        assertEquals(Times.rfc3339(2000), first.getString("covers_to"));
        assertEquals(first.getString("covers_to"), second.getString("covers_from"));
        assertEquals(Times.rfc3339(60000), last.getString("covers_to"));
        assertEquals(3, last.getInt("chunks"));
        JSONArray list = first.getJSONArray("entries");
        assertEquals("msg_0", list.getJSONObject(0).getString("message_id"));
        assertEquals(Times.rfc3339(1010), list.getJSONObject(0).getString("sent_at"));
        assertFalse(list.getJSONObject(0).has("delivered_at"));
        List<String> empty = Digest.frames(new ArrayList<RecordEntry>(), 0, 60000, 2, "d2");
        assertEquals(1, empty.size());
        assertEquals(0, new JSONObject(empty.get(0)).getJSONArray("entries").length());
    }

    @Test
    public void whenAVersion4DatabaseIsUpgradedThenTheRecordBeginsEmptyAtTheUpgrade() {
        db = new JdbcSqlDb(new File(folder.getRoot(), "outbox.db").getPath());
        for (String statement : OldSchemas.VERSION_3) db.execute(statement);
        SqlOutboxStore store = new SqlOutboxStore(db);
        store.upgrade(3);
        clock.advance(5000);
        SendRecord upgraded = SendRecord.open(store, clock);
        assertTrue(upgraded.list().isEmpty());
        assertEquals(clock.now(), upgraded.coversFrom());
    }
}
