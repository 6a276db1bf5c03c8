package org.smsgw.agent.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Expiry and not_sent in the outbox (protocol 2): expiry before sending and at restart, not_sent kept with its report, the version 1 schema. */
public class OutboxExpiryTest {
    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private final ManualLoop clock = new ManualLoop();
    private File file;
    private JdbcSqlDb db;
    private Outbox outbox;

    @Before
    public void open() {
        file = new File(folder.getRoot(), "outbox.db");
        outbox = reopen("boot-1");
    }

    @After
    public void close() {
        db.close();
    }

    private Outbox reopen(String bootId) {
        if (db != null) db.close();
        db = new JdbcSqlDb(file.getPath());
        SqlOutboxStore store = new SqlOutboxStore(db);
        store.createSchema();
        return Outbox.open(store, clock, bootId);
    }

    private Sms sms(String id, long expiresInMs) {
        return new Sms(id, "+33612345678", "Bonjour", null, expiresInMs == 0 ? 0 : clock.now() + expiresInMs);
    }

    /** "id status code notSent" of each pending report. */
    private List<String> pending() {
        List<String> out = new ArrayList<String>();
        for (Report r : outbox.pendingReports()) {
            out.add(r.messageId + " " + r.status + (r.error == null ? "" : " " + r.error.code) + (r.notSent ? " not_sent" : ""));
        }
        return out;
    }

    @Test
    public void whenAnSmsWithAnExpiryIsAcceptedThenTheExpiryIsOnDiskAndGoesWithTheSmsToSend() {
        Sms s = sms("msg_1", 60000);
        outbox.accept(s);
        outbox = reopen("boot-1");
        assertEquals(s.expiresAt, outbox.get("msg_1").expiresAt);
        assertEquals(s.expiresAt, outbox.toSend().get(0).expiresAt);
    }

    @Test
    public void whenSendingWouldBeginBeforeTheExpiryThenTheEntryIsNotDropped() {
        outbox.accept(sms("msg_1", 60000));
        outbox.accept(sms("msg_never", 0));
        clock.advance(59999);
        assertFalse(outbox.dropIfExpired("msg_1"));
        clock.advance(365L * 24 * 3600 * 1000);
        assertFalse("no expiry: never dropped", outbox.dropIfExpired("msg_never"));
        assertEquals(OutboxEntry.ACCEPTED, outbox.get("msg_1").state);
        assertTrue(pending().isEmpty());
    }

    @Test
    public void whenTheExpiryHasComeThenTheEntryFailsAsExpiredNotSentAndTheReportStaysUntilAcknowledged() {
        outbox.accept(sms("msg_1", 60000));
        clock.advance(60000);
        assertTrue(outbox.dropIfExpired("msg_1"));
        assertEquals(OutboxEntry.FAILED, outbox.get("msg_1").state);
        assertEquals(Arrays.asList("msg_1 failed EXPIRED not_sent"), pending());

        outbox = reopen("boot-1");
        assertEquals("a restart sends the same report again", Arrays.asList("msg_1 failed EXPIRED not_sent"), pending());
        assertTrue(outbox.toSend().isEmpty());
        outbox.ackReport("msg_1", Report.FAILED);
        assertTrue(pending().isEmpty());
        assertFalse("never sent after all", outbox.accept(sms("msg_1", 60000)));
    }

    @Test
    public void whenTheAppRestartsAfterTheExpiryThenAcceptedEntriesFailAsExpiredAndInterruptedOnesWithoutNotSent() {
        outbox.accept(sms("msg_expired", 1000));
        outbox.accept(sms("msg_later", 3600000));
        outbox.accept(sms("msg_cut", 1000));
        outbox.markSending("msg_cut", 1);
        clock.advance(5000);

        outbox = reopen("boot-1");

        assertEquals(Arrays.asList("msg_expired"), outbox.expiredAtOpen());
        assertEquals(Arrays.asList("msg_cut"), outbox.failedAtOpen());
        assertEquals(1, outbox.toSend().size());
        assertEquals("msg_later", outbox.toSend().get(0).messageId);
        assertEquals(Arrays.asList("msg_expired failed EXPIRED not_sent", "msg_cut failed DEVICE_ERROR"), pending());
    }

    @Test
    public void whenAndroidRefusesTheFirstPartBeforeTheNetworkThenTheFailureIsNotSentAlsoAfterARestart() {
        for (String id : new String[] {"msg_radio", "msg_pdu"}) {
            outbox.accept(sms(id, 0));
            outbox.markSending(id, 1);
            outbox.markHandedOver(id);
        }
        SmsResults.sent(outbox, "msg_radio", 0, 2, -1); // RADIO_OFF
        SmsResults.sent(outbox, "msg_pdu", 0, 3, -1); // NULL_PDU: not in the list
        assertEquals(Arrays.asList("msg_radio failed OUT_OF_NETWORK not_sent", "msg_pdu failed DEVICE_ERROR"), pending());
        outbox = reopen("boot-1");
        assertEquals(Arrays.asList("msg_radio failed OUT_OF_NETWORK not_sent", "msg_pdu failed DEVICE_ERROR"), pending());
    }

    @Test
    public void whenAPartWasAlreadySentThenALaterRefusalIsNotNotSent() {
        outbox.accept(new Sms("msg_1", "+33612345678", "long", null));
        outbox.markSending("msg_1", 2);
        outbox.markHandedOver("msg_1");
        SmsResults.sent(outbox, "msg_1", 0, SendFailures.RESULT_OK, -1);
        SmsResults.sent(outbox, "msg_1", 1, 4, -1); // NO_SERVICE
        assertEquals(Arrays.asList("msg_1 failed OUT_OF_NETWORK"), pending());
    }

    @Test
    public void whenADeliveryReportFailsThenItIsNeverNotSent() {
        outbox.accept(sms("msg_1", 0));
        outbox.markSending("msg_1", 1);
        outbox.markHandedOver("msg_1");
        SmsResults.sent(outbox, "msg_1", 0, SendFailures.RESULT_OK, -1);
        outbox.partDelivered("msg_1", 0, StatusReports.ofTpStatus(0x41));
        assertEquals(Arrays.asList("msg_1 sent", "msg_1 failed INVALID_NUMBER"), pending());
    }

    @Test
    public void whenTheDatabaseIsOfVersionOneThenTheUpgradeKeepsItsEntriesWithoutExpiryOrNotSent() {
        db.close();
        assertTrue(file.delete());
        db = new JdbcSqlDb(file.getPath());
        for (String statement : VERSION_1_SCHEMA) db.execute(statement);
        db.execute("INSERT INTO outbox_entry (message_id, seq, recipient, body, traceparent, state, parts, parts_sent,"
                + " parts_delivered, handed_at, handed_boot, delivery_wait_until, accepted_at, updated_at)"
                + " VALUES ('msg_old', 1, '+33612345678', 'old', NULL, 'accepted', 0, '', '', 0, NULL, 0, 1, 1)");
        db.execute("INSERT INTO outbox_entry (message_id, seq, recipient, body, traceparent, state, parts, parts_sent,"
                + " parts_delivered, handed_at, handed_boot, delivery_wait_until, accepted_at, updated_at)"
                + " VALUES ('msg_failed', 2, '+33612345678', 'old', NULL, 'failed', 1, '.', '.', 1, 'boot-1', 0, 1, 1)");
        db.execute("INSERT INTO outbox_report (message_id, position, status, at, error_code, error_message)"
                + " VALUES ('msg_failed', 0, 'failed', 5, 'OUT_OF_NETWORK', 'no service')");
        SqlOutboxStore store = new SqlOutboxStore(db);
        store.upgrade(1);
        outbox = Outbox.open(store, clock, "boot-1");

        assertEquals(0, outbox.get("msg_old").expiresAt);
        assertEquals("msg_old", outbox.toSend().get(0).messageId);
        assertFalse(outbox.dropIfExpired("msg_old"));
        assertEquals(Arrays.asList("msg_failed failed OUT_OF_NETWORK"), pending());
        assertTrue(outbox.accept(sms("msg_new", 1000)));
        clock.advance(1000);
        assertTrue(outbox.dropIfExpired("msg_new"));
        outbox = reopen("boot-1");
        assertEquals(Arrays.asList("msg_failed failed OUT_OF_NETWORK", "msg_new failed EXPIRED not_sent"), pending());
    }

    /** The schema the app's version 1 created, as it was. */
    private static final String[] VERSION_1_SCHEMA = {
        "CREATE TABLE outbox_entry (message_id TEXT PRIMARY KEY NOT NULL, seq INTEGER NOT NULL UNIQUE, recipient TEXT NOT NULL,"
            + " body TEXT NOT NULL, traceparent TEXT, state TEXT NOT NULL CHECK (state IN ('accepted', 'sending', 'sent',"
            + " 'delivered', 'failed')), parts INTEGER NOT NULL DEFAULT 0, parts_sent TEXT NOT NULL DEFAULT '',"
            + " parts_delivered TEXT NOT NULL DEFAULT '', handed_at INTEGER NOT NULL DEFAULT 0, handed_boot TEXT,"
            + " delivery_wait_until INTEGER NOT NULL DEFAULT 0, accepted_at INTEGER NOT NULL, updated_at INTEGER NOT NULL)",
        "CREATE TABLE outbox_report (message_id TEXT NOT NULL, position INTEGER NOT NULL, status TEXT NOT NULL"
            + " CHECK (status IN ('sent', 'delivered', 'failed')), at INTEGER NOT NULL, error_code TEXT, error_message TEXT,"
            + " PRIMARY KEY (message_id, status))",
        "CREATE TABLE outbox_done (message_id TEXT PRIMARY KEY NOT NULL)",
    };
}
