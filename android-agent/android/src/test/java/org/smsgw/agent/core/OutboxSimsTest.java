package org.smsgw.agent.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.After;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** SIMs in the outbox (protocol 4): the SIM kept on disk, the one sent through in reports, schema 3 upgraded in place. */
public class OutboxSimsTest {
    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private final ManualLoop clock = new ManualLoop();
    private JdbcSqlDb db;

    @After
    public void close() {
        if (db != null) db.close();
    }

    private Outbox open(boolean create) {
        if (db != null) db.close();
        db = new JdbcSqlDb(new File(folder.getRoot(), "outbox.db").getPath());
        SqlOutboxStore store = new SqlOutboxStore(db);
        if (create) store.createSchema();
        return Outbox.open(store, clock, "boot-1");
    }

    @Test
    public void whenAnSmsWithASimIsAcceptedThenTheSimIsOnDiskAndSurvivesARestart() {
        Outbox outbox = open(true);
        assertTrue(outbox.accept(new Sms("msg_1", "+33612345678", "Bonjour", null, 0, 2)));
        assertTrue(outbox.accept(new Sms("msg_2", "+33612345678", "Bonjour", null, 0)));
        outbox = open(false);
        assertEquals(2, outbox.toSend().get(0).sim);
        assertEquals(0, outbox.toSend().get(1).sim);
    }

    @Test
    public void whenSentThroughASlotThenEveryReportNamesItAlsoAfterARestart() {
        Outbox outbox = open(true);
        outbox.accept(new Sms("msg_1", "+33612345678", "Bonjour", null, 0, 2));
        outbox.markSending("msg_1", 1, 2);
        outbox.markHandedOver("msg_1");
        outbox.partSent("msg_1", 0, null);
        outbox = open(false);
        Report r = outbox.pendingReports().get(0);
        assertEquals(Report.SENT, r.status);
        assertEquals(2, r.sim);
    }

    @Test
    public void whenAnAbsentSlotIsRefusedThenTheEntryFailsNotSentWithoutASim() {
        Outbox outbox = open(true);
        outbox.accept(new Sms("msg_1", "+33612345678", "Bonjour", null, 0, 3));
        outbox.refuse("msg_1", Sim.absent(3));
        Report r = open(false).pendingReports().get(0);
        assertEquals(Report.FAILED, r.status);
        assertTrue(r.notSent);
        assertEquals(new SmsError(SmsError.DEVICE_ERROR, "SIM 3 absente"), r.error);
        assertEquals(0, r.sim);
    }

    @Test
    public void whenAVersion3DatabaseIsUpgradedThenEveryRowStaysAndNewEntriesKeepTheirSim() {
        db = new JdbcSqlDb(new File(folder.getRoot(), "outbox.db").getPath());
        for (String statement : OldSchemas.VERSION_3) db.execute(statement);
        db.execute("INSERT INTO outbox_entry (message_id, seq, recipient, body, traceparent, expires_at, state, parts, parts_sent,"
                + " parts_delivered, handed_at, handed_boot, delivery_wait_until, accepted_at, updated_at)"
                + " VALUES ('msg_accepted', 1, '+33612345678', 'old', NULL, 0, 'accepted', 0, '', '', 0, NULL, 0, 1, 1)");
        db.execute("INSERT INTO outbox_entry (message_id, seq, recipient, body, traceparent, expires_at, state, parts, parts_sent,"
                + " parts_delivered, handed_at, handed_boot, delivery_wait_until, accepted_at, updated_at)"
                + " VALUES ('msg_failed', 2, '+33612345678', 'old', NULL, 0, 'failed', 1, '.', '.', 1, 'boot-1', 0, 1, 1)");
        db.execute("INSERT INTO outbox_report (message_id, position, status, at, error_code, error_message, not_sent)"
                + " VALUES ('msg_failed', 0, 'failed', 5, 'OUT_OF_NETWORK', 'no service', 1)");
        db.execute("INSERT INTO outbox_done (message_id) VALUES ('msg_done')");
        db.execute("INSERT INTO inbox_entry (received_id, sender, body, sim, received_at) VALUES ('r1', '+33611111111', 'hi', 1, 3)");
        SqlOutboxStore store = new SqlOutboxStore(db);
        store.upgrade(3);
        Outbox outbox = Outbox.open(store, clock, "boot-1");

        assertEquals(6, SqlOutboxStore.SCHEMA_VERSION);
        assertEquals(0, outbox.toSend().get(0).sim);
        assertEquals("msg_accepted", outbox.toSend().get(0).messageId);
        Report failed = outbox.pendingReports().get(0);
        assertEquals("msg_failed failed OUT_OF_NETWORK (not sent)", failed.toString());
        assertEquals(0, failed.sim);
        assertTrue(outbox.has("msg_done"));
        assertEquals(1, new Inbox(db).pending().size());

        assertTrue(outbox.accept(new Sms("msg_new", "+33612345678", "Bonjour", null, 0, 2)));
        outbox = open(false);
        List<String> ids = new ArrayList<String>();
        for (Sms s : outbox.toSend()) ids.add(s.messageId + ":" + s.sim);
        assertEquals(Arrays.asList("msg_accepted:0", "msg_new:2"), ids);
    }
}
