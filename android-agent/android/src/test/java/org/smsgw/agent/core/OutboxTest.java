package org.smsgw.agent.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** The outbox's rules on a real SQLite file, reopened to stand for a restart of the app. */
public class OutboxTest {
    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private final ManualLoop clock = new ManualLoop();
    private File file;
    private JdbcSqlDb db;
    private Outbox outbox;
    private final List<Report> heard = new ArrayList<Report>();

    @Before
    public void open() throws Exception {
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
        Outbox o = Outbox.open(store, clock, bootId);
        o.setListener(new Outbox.Listener() {
            @Override
            public void onReport(Report report) {
                heard.add(report);
            }

            @Override
            public void onChanged() {
            }
        });
        return o;
    }

    private static Sms sms(String id) {
        return new Sms(id, "+33612345678", "Bonjour " + id, "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01");
    }

    private void sendInParts(String id, int parts) {
        assertTrue(outbox.accept(sms(id)));
        outbox.markSending(id, parts);
        outbox.markHandedOver(id);
    }

    private List<String> pending() {
        List<String> out = new ArrayList<String>();
        for (Report r : outbox.pendingReports()) out.add(r.messageId + " " + r.status + (r.error == null ? "" : " " + r.error.code));
        return out;
    }

    @Test
    public void whenAnSmsIsOfferedTwiceThenItIsAcceptedOnceAlsoAfterItFinished() {
        assertTrue(outbox.accept(sms("msg_1")));
        assertFalse(outbox.accept(sms("msg_1")));
        outbox.markSending("msg_1", 1);
        outbox.markHandedOver("msg_1");
        outbox.partSent("msg_1", 0, null);
        outbox.partDelivered("msg_1", 0, Delivery.DELIVERED);
        outbox.ackReport("msg_1", Report.SENT);
        outbox.ackReport("msg_1", Report.DELIVERED);
        assertNull(outbox.get("msg_1"));
        assertFalse(outbox.accept(sms("msg_1")));
        outbox = reopen("boot-1");
        assertFalse("the done ids survive a restart", outbox.accept(sms("msg_1")));
        assertTrue(outbox.toSend().isEmpty());
    }

    @Test
    public void whenEveryPartIsSentAndDeliveredThenSentThenDeliveredAreReportedWithTheirTimes() {
        sendInParts("msg_1", 2);
        clock.advance(1000);
        outbox.partSent("msg_1", 0, null);
        assertEquals(OutboxEntry.SENDING, outbox.get("msg_1").state);
        clock.advance(1000);
        long sentAt = clock.now();
        outbox.partSent("msg_1", 1, null);
        assertEquals(OutboxEntry.SENT, outbox.get("msg_1").state);
        outbox.partDelivered("msg_1", 1, Delivery.DELIVERED);
        outbox.partDelivered("msg_1", 0, Delivery.PENDING);
        assertEquals("a pending status waits", OutboxEntry.SENT, outbox.get("msg_1").state);
        clock.advance(5000);
        long deliveredAt = clock.now();
        outbox.partDelivered("msg_1", 0, Delivery.DELIVERED);
        assertEquals(OutboxEntry.DELIVERED, outbox.get("msg_1").state);
        List<Report> reports = outbox.pendingReports();
        assertEquals(2, reports.size());
        assertEquals(Report.SENT, reports.get(0).status);
        assertEquals(sentAt, reports.get(0).at);
        assertEquals(Report.DELIVERED, reports.get(1).status);
        assertEquals(deliveredAt, reports.get(1).at);
        assertEquals("the trace context goes back with every report", sms("msg_1").traceparent, reports.get(1).traceparent);
        assertEquals(2, heard.size());
    }

    @Test
    public void whenTheSecondPartFailsThenTheSmsFailsWithItsCauseAndLaterReportsChangeNothing() {
        sendInParts("msg_1", 2);
        SmsResults.sent(outbox, "msg_1", 0, SendFailures.RESULT_OK, -1);
        SmsResults.sent(outbox, "msg_1", 1, 4 /* RESULT_ERROR_NO_SERVICE */, -1);
        assertEquals(OutboxEntry.FAILED, outbox.get("msg_1").state);
        SmsResults.delivered(outbox, "msg_1", 0, "3gpp", null, 0);
        assertEquals(java.util.Arrays.asList("msg_1 failed OUT_OF_NETWORK"), pending());
    }

    @Test
    public void whenADeliveryReportSaysFailedThenASentSmsFails() {
        sendInParts("msg_1", 1);
        outbox.partSent("msg_1", 0, null);
        outbox.partDelivered("msg_1", 0, StatusReports.ofTpStatus(0x41));
        assertEquals(java.util.Arrays.asList("msg_1 sent", "msg_1 failed INVALID_NUMBER"), pending());
    }

    @Test
    public void whenDeliveryReportsComeBeforeTheLastSentReportThenTheSmsIsSentThenDelivered() {
        sendInParts("msg_1", 2);
        outbox.partSent("msg_1", 0, null);
        outbox.partDelivered("msg_1", 0, Delivery.DELIVERED);
        outbox.partDelivered("msg_1", 1, Delivery.DELIVERED);
        assertEquals(OutboxEntry.SENDING, outbox.get("msg_1").state);
        outbox.partSent("msg_1", 1, null);
        assertEquals(java.util.Arrays.asList("msg_1 sent", "msg_1 delivered"), pending());
    }

    @Test
    public void whenTheAppRestartsThenReportsNotAcknowledgedAreStillThereAndAcknowledgedOnesAreNot() {
        sendInParts("msg_1", 1);
        outbox.partSent("msg_1", 0, null);
        sendInParts("msg_2", 1);
        outbox.partSent("msg_2", 0, null);
        outbox = reopen("boot-1");
        assertEquals(java.util.Arrays.asList("msg_1 sent", "msg_2 sent"), pending());
        outbox.ackReport("msg_1", Report.SENT);
        outbox.ackReport("msg_1", Report.SENT);
        outbox = reopen("boot-1");
        assertEquals(java.util.Arrays.asList("msg_2 sent"), pending());
        assertEquals("a sent SMS still waits for its delivery report", OutboxEntry.SENT, outbox.get("msg_1").state);
    }

    @Test
    public void whenTheAppStopsBeforeTheSmsReachedAndroidThenItIsReportedFailedNotSentAgain() {
        assertTrue(outbox.accept(sms("msg_accepted")));
        assertTrue(outbox.accept(sms("msg_sending")));
        outbox.markSending("msg_sending", 1);
        outbox = reopen("boot-1");
        assertEquals(java.util.Arrays.asList("msg_sending failed DEVICE_ERROR"), pending());
        assertEquals(java.util.Arrays.asList("msg_sending"), outbox.failedAtOpen());
        assertEquals(1, outbox.toSend().size());
        assertEquals("msg_accepted", outbox.toSend().get(0).messageId);
    }

    @Test
    public void whenTheAppRestartsAfterHandingTheSmsToAndroidThenItWaitsForAndroidsReports() {
        sendInParts("msg_1", 1);
        outbox = reopen("boot-1");
        assertEquals(OutboxEntry.SENDING, outbox.get("msg_1").state);
        assertTrue(pending().isEmpty());
        outbox.partSent("msg_1", 0, null);
        assertEquals(java.util.Arrays.asList("msg_1 sent"), pending());
    }

    @Test
    public void whenThePhoneRebootedThenAnSmsWithoutItsSentReportFailsAndASentOneStopsWaitingForDelivery() {
        sendInParts("msg_handed", 1);
        sendInParts("msg_sent", 1);
        outbox.partSent("msg_sent", 0, null);
        outbox.ackReport("msg_sent", Report.SENT);
        outbox = reopen("boot-2");
        assertEquals(java.util.Arrays.asList("msg_handed failed DEVICE_ERROR"), pending());
        assertNull("no delivery report can reach another boot", outbox.get("msg_sent"));
        assertFalse(outbox.accept(sms("msg_sent")));
    }

    @Test
    public void whenAndroidNeverReportsThenTheSweepFailsTheSmsAndLaterLetsSentOnesGo() {
        sendInParts("msg_1", 1);
        sendInParts("msg_2", 1);
        outbox.partSent("msg_2", 0, null);
        outbox.ackReport("msg_2", Report.SENT);
        clock.advance(Outbox.SENDING_TIMEOUT_MS);
        outbox.sweep();
        assertEquals(java.util.Arrays.asList("msg_1 failed DEVICE_ERROR"), pending());
        assertEquals(OutboxEntry.SENT, outbox.get("msg_2").state);
        clock.advance(Outbox.DELIVERY_WAIT_MS);
        outbox.sweep();
        assertNull(outbox.get("msg_2"));
    }

    @Test
    public void whenTheSenderRefusesThenTheSmsFailsWithItsCause() {
        assertTrue(outbox.accept(sms("msg_1")));
        outbox.markSending("msg_1", 1);
        outbox.fail("msg_1", new SmsError(SmsError.INVALID_NUMBER, "bad"));
        assertEquals(java.util.Arrays.asList("msg_1 failed INVALID_NUMBER"), pending());
        assertEquals(0, outbox.queued());
    }

    @Test
    public void whenSmsAreAcceptedThenTheyAreSentInAcceptanceOrderAlsoAfterARestart() {
        for (int i = 1; i <= 5; i++) outbox.accept(sms("msg_" + (6 - i)));
        outbox = reopen("boot-1");
        List<String> order = new ArrayList<String>();
        for (Sms s : outbox.toSend()) order.add(s.messageId);
        assertEquals(java.util.Arrays.asList("msg_5", "msg_4", "msg_3", "msg_2", "msg_1"), order);
        assertTrue(outbox.accept(sms("msg_6")));
        assertEquals(6, outbox.get("msg_6").seq);
    }

    @Test
    public void whenAnIdHoldsOddCharactersThenItIsStoredAsIs() {
        String id = "msg_'; DROP TABLE outbox_entry; --/\n\u00e9";
        assertTrue(outbox.accept(sms(id)));
        outbox = reopen("boot-1");
        assertEquals(id, outbox.toSend().get(0).messageId);
    }
}
