package org.smsgw.agent.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Several SIMs through the core (protocol 4): the SIMs in agent_hello, the SIM of each sms, an absent slot, the SIM in reports. */
public class AgentSimsTest {
    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private final ManualLoop loop = new ManualLoop();
    private final FakeTransport transport = new FakeTransport();
    private final RecordingSender sender = new RecordingSender();
    private JdbcSqlDb db;
    private Outbox outbox;
    private Agent agent;

    private static final Sim SIM_1 = new Sim(1, "Orange F", "+33 6 12 34 56 78", 11);
    private static final Sim SIM_2 = new Sim(2, "Free", null, 12);

    @Before
    public void start() {
        db = new JdbcSqlDb(new File(folder.getRoot(), "outbox.db").getPath());
        startAgent();
    }

    @After
    public void close() {
        db.close();
    }

    private void startAgent() {
        SqlOutboxStore store = new SqlOutboxStore(db);
        store.createSchema();
        outbox = Outbox.open(store, loop, "boot-1");
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

    private FakeTransport.Conn connected() {
        FakeTransport.Conn c = transport.last();
        c.open();
        c.hear("{\"type\":\"hello\",\"protocol\":4,\"device_id\":\"device_1\",\"ping_interval_ms\":25000}");
        loop.runDue();
        return c;
    }

    private static String sms(String id, String simField) {
        return "{\"type\":\"sms\",\"message_id\":\"" + id + "\",\"to\":\"+33612345678\",\"text\":\"Bonjour\",\"attempt\":1"
                + (simField == null ? "" : ",\"sim\":" + simField) + "}";
    }

    private static List<JSONObject> reports(FakeTransport.Conn c, String messageId) throws Exception {
        List<JSONObject> out = new ArrayList<JSONObject>();
        for (String s : c.sentOfType("report")) {
            JSONObject o = new JSONObject(s);
            if (o.getString("message_id").equals(messageId)) out.add(o);
        }
        return out;
    }

    @Test
    public void whenThePhoneHasTwoSimsThenAgentHelloListsThemBySlotWithWhatIsKnown() throws Exception {
        sender.sims = Arrays.asList(SIM_2, SIM_1);
        JSONObject hello = new JSONObject(connected().sent.get(0));
        assertEquals("agent_hello", hello.getString("type"));
        assertEquals(Protocol.VERSION, hello.getInt("protocol"));
        JSONArray sims = hello.getJSONArray("sims");
        assertEquals(2, sims.length());
        assertEquals(1, sims.getJSONObject(0).getInt("slot"));
        assertEquals("Orange F", sims.getJSONObject(0).getString("carrier"));
        assertEquals("+33612345678", sims.getJSONObject(0).getString("number"));
        assertEquals(2, sims.getJSONObject(1).getInt("slot"));
        assertFalse(sims.getJSONObject(1).has("number"));
    }

    @Test
    public void whenTheSimsCannotBeReadThenAgentHelloSaysAnEmptyList() throws Exception {
        sender.sims = null;
        assertEquals(0, new JSONObject(connected().sent.get(0)).getJSONArray("sims").length());
    }

    @Test
    public void whenAnSmsAsksForSim2ThenItGoesThroughThatSubscriptionAndItsReportsSaySim2() throws Exception {
        sender.sims = Arrays.asList(SIM_1, SIM_2);
        FakeTransport.Conn c = connected();
        c.hear(sms("msg_1", "2"));
        loop.runDue();
        assertEquals(1, c.sentOfType("ack").size());
        assertEquals(Arrays.asList("sub12"), sender.through);
        assertEquals(2, outbox.get("msg_1").sim);
        outbox.partSent("msg_1", 0, null);
        loop.runDue();
        List<JSONObject> r = reports(c, "msg_1");
        assertEquals("sent", r.get(0).getString("status"));
        assertEquals(2, r.get(0).getInt("sim"));
    }

    @Test
    public void whenAnSmsAsksForNoSimThenTheDefaultSimSendsAndTheReportNamesItsSlotWhenKnown() throws Exception {
        sender.sims = Arrays.asList(SIM_1, SIM_2);
        sender.defaultSlot = 1;
        FakeTransport.Conn c = connected();
        c.hear(sms("msg_1", null));
        c.hear(sms("msg_2", "\"2\""));
        loop.runDue();
        assertEquals(Arrays.asList("default", "default"), sender.through);
        outbox.partSent("msg_1", 0, null);
        loop.runDue();
        assertEquals(1, reports(c, "msg_1").get(0).getInt("sim"));

        sender.defaultSlot = 0;
        c.hear(sms("msg_3", null));
        loop.runDue();
        outbox.partSent("msg_3", 0, null);
        loop.runDue();
        assertFalse(reports(c, "msg_3").get(0).has("sim"));
    }

    @Test
    public void whenTheSlotAskedForHasNoSimThenNothingIsSentAndTheReportIsFailedNotSentSimAbsente() throws Exception {
        sender.sims = Arrays.asList(SIM_1);
        FakeTransport.Conn c = connected();
        c.hear(sms("msg_1", "2"));
        loop.runDue();
        assertEquals(1, c.sentOfType("ack").size());
        assertTrue(sender.sent.isEmpty());
        List<JSONObject> r = reports(c, "msg_1");
        assertEquals(1, r.size());
        assertEquals("failed", r.get(0).getString("status"));
        assertTrue(r.get(0).getBoolean("not_sent"));
        assertEquals("DEVICE_ERROR", r.get(0).getJSONObject("error").getString("code"));
        assertEquals("SIM 2 absente", r.get(0).getJSONObject("error").getString("message"));
        assertFalse(r.get(0).has("sim"));

        // Resent after a restart and a new hello, still not_sent; and never sent.
        agent.stop();
        loop.runDue();
        startAgent();
        FakeTransport.Conn c2 = connected();
        assertTrue(reports(c2, "msg_1").get(0).getBoolean("not_sent"));
        assertTrue(sender.sent.isEmpty());
    }

    @Test
    public void whenThePhoneHasNoSimAtAllThenAnSmsForSlot1FailsNotSent() throws Exception {
        sender.sims = new ArrayList<Sim>();
        FakeTransport.Conn c = connected();
        c.hear(sms("msg_1", "1"));
        loop.runDue();
        assertTrue(sender.sent.isEmpty());
        assertEquals("SIM 1 absente", reports(c, "msg_1").get(0).getJSONObject("error").getString("message"));
    }

    @Test
    public void whenTheSimsCannotBeReadThenAnSmsAskingForASimGoesThroughTheDefaultSimAsAVersion3AgentWould() throws Exception {
        sender.sims = null;
        FakeTransport.Conn c = connected();
        c.hear(sms("msg_1", "2"));
        loop.runDue();
        assertEquals(Arrays.asList("default"), sender.through);
        outbox.partSent("msg_1", 0, null);
        loop.runDue();
        assertFalse(reports(c, "msg_1").get(0).has("sim"));
    }

    @Test
    public void whenTheAppRestartsBeforeSendingThenTheSimAskedForIsStillUsed() throws Exception {
        sender.sims = Arrays.asList(SIM_1, SIM_2);
        // Accepted and acknowledged, but the app stops before handing it over.
        outbox.accept(new Sms("msg_1", "+33612345678", "Bonjour", null, 0, 2));
        agent.stop();
        loop.runDue();
        startAgent();
        assertEquals(Arrays.asList("sub12"), sender.through);
    }

    @Test
    public void whenReadingTheSimsThrowsThenTheHelloGoesWithNoSimsAndTheSmsThroughTheDefaultSim() throws Exception {
        sender.simsError = new SecurityException("READ_PHONE_STATE");
        FakeTransport.Conn c = connected();
        assertEquals(0, new JSONObject(c.sent.get(0)).getJSONArray("sims").length());
        c.hear(sms("msg_1", "1"));
        loop.runDue();
        assertEquals(Arrays.asList("default"), sender.through);
    }
}
