package org.smsgw.agent.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.fail;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.After;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;
import org.junit.runner.RunWith;
import org.junit.runners.Parameterized;

/**
 * The protocol fixtures (android-agent/fixtures, the executable part of PROTOCOL.md, their format
 * in its README) run against the app's core: the Agent with its outbox and inbox on SQLite, a fake
 * transport and virtual time; the fixture plays the hub and the phone (Android's sent and delivery
 * results through SmsResults). The Node agent and the hub run the same files.
 */
@RunWith(Parameterized.class)
public class ProtocolFixturesTest {
    private static final String DRIVER = "android";

    @Parameterized.Parameters(name = "{0}")
    public static Collection<Object[]> fixtures() throws Exception {
        File[] files = fixturesDir().listFiles();
        if (files == null) throw new IllegalStateException("no fixtures folder at " + fixturesDir());
        Arrays.sort(files);
        List<Object[]> out = new ArrayList<Object[]>();
        for (File file : files) {
            if (!file.getName().endsWith(".json")) continue;
            JSONObject fixture = new JSONObject(new String(Files.readAllBytes(file.toPath()), StandardCharsets.UTF_8));
            checkShape(file.getName(), fixture);
            JSONArray agents = fixture.optJSONArray("agents");
            if (agents != null && !contains(agents, "java")) continue;
            out.add(new Object[] {file.getName(), fixture});
        }
        if (out.isEmpty()) throw new IllegalStateException("no fixture in " + fixturesDir());
        return out;
    }

    private static final List<String> FIXTURE_KEYS = Arrays.asList("behaviour", "agents", "phone", "steps");
    private static final List<String> INPUT_KEYS = Arrays.asList("hub", "phone", "connection", "wait_ms", "restart");
    private static final List<String> CHECK_KEYS = Arrays.asList("agent", "handed_over", "outbox", "inbox");

    /** The keys of fixtures/README.md only: a misspelt key would otherwise assert nothing. */
    private static void checkShape(String name, JSONObject fixture) throws Exception {
        for (Iterator<String> keys = fixture.keys(); keys.hasNext();) {
            String key = keys.next();
            if (!FIXTURE_KEYS.contains(key)) throw new IllegalStateException("fixtures/" + name + ": unknown key " + key);
        }
        JSONArray steps = fixture.getJSONArray("steps");
        for (int i = 0; i < steps.length(); i++) {
            JSONObject step = steps.getJSONObject(i);
            int inputs = 0;
            for (Iterator<String> keys = step.keys(); keys.hasNext();) {
                String key = keys.next();
                if (INPUT_KEYS.contains(key)) inputs++;
                else if (!CHECK_KEYS.contains(key)) throw new IllegalStateException("fixtures/" + name + ", step " + (i + 1) + ": unknown key " + key);
            }
            if (inputs != 1 || !step.has("agent")) {
                throw new IllegalStateException("fixtures/" + name + ", step " + (i + 1) + ": one input and the agent's frames, see fixtures/README.md");
            }
        }
    }

    /** android-agent/fixtures, found from the compiled classes (android/build/jvm/classes), or -Dsmsgw.fixtures. */
    private static File fixturesDir() throws Exception {
        String given = System.getProperty("smsgw.fixtures");
        if (given != null) return new File(given);
        File classes = new File(ProtocolFixturesTest.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        return new File(classes.getParentFile().getParentFile().getParentFile().getParentFile(), "fixtures");
    }

    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private final String file;
    private final JSONObject fixture;
    private final ManualLoop loop = new ManualLoop();
    private final FakeTransport transport = new FakeTransport();
    private final RecordingSender sender = new RecordingSender();
    private final FixtureFrames frames = new FixtureFrames(DRIVER);
    private JdbcSqlDb db;
    private long resendMs;
    /** Protocol 8: the owner's passphrase of the fixture's phone; null: none. */
    private String passphrase;
    private Agent agent;
    private Outbox outbox;
    private Inbox inbox;
    /** The connection of the last {@code drop} step. */
    private FakeTransport.Conn dropped;

    public ProtocolFixturesTest(String file, JSONObject fixture) {
        this.file = file;
        this.fixture = fixture;
    }

    @After
    public void close() {
        if (db != null) db.close();
    }

    @Test
    public void whenTheFixtureIsPlayedThenTheCoreSendsItsFramesAndKeepsItsOutboxAndInbox() throws Exception {
        start();
        JSONArray steps = fixture.getJSONArray("steps");
        for (int i = 0; i < steps.length(); i++) {
            JSONObject step = steps.getJSONObject(i);
            String where = file + ", step " + (i + 1);
            int before = sent().size();
            JSONObject event = step.optJSONObject("phone");
            boolean received = passphrase != null && event != null && "received".equals(event.optString("event"));
            frames.sealed(received ? passphrase : null, received ? event.getString("text") : null);
            play(step);
            List<Object> out = new ArrayList<Object>();
            for (String text : sent().subList(before, sent().size())) out.add(new JSONObject(text));
            JSONArray expected = step.getJSONArray("agent");
            if (!frames.matches(expected, new JSONArray(out))) {
                fail(where + ": expected the agent to send\n" + expected.toString(1) + "\nbut it sent\n" + new JSONArray(out).toString(1));
            }
            if (step.has("handed_over")) assertEquals(where, strings(step.getJSONArray("handed_over")), sender.sent);
            if (step.has("outbox")) {
                JSONObject actual = outboxOf(step.getJSONObject("outbox"));
                if (!frames.matches(step.getJSONObject("outbox"), actual)) fail(where + ": expected the outbox " + step.get("outbox") + " but it holds " + actual);
            }
            if (step.has("inbox")) assertEquals(where, step.getInt("inbox"), inbox.pending().size());
        }
    }

    private void start() throws Exception {
        JSONObject phone = fixture.optJSONObject("phone");
        JSONArray sims = phone == null ? null : phone.optJSONArray("sims");
        if (sims != null) {
            List<Sim> list = new ArrayList<Sim>();
            for (int i = 0; i < sims.length(); i++) {
                JSONObject s = sims.getJSONObject(i);
                list.add(new Sim(s.getInt("slot"), s.optString("carrier", null), s.optString("number", null), 100 + s.getInt("slot")));
            }
            sender.sims = list;
        }
        resendMs = phone == null ? HubClient.REPORT_RESEND_MS : phone.optLong("report_resend_ms", HubClient.REPORT_RESEND_MS);
        passphrase = phone == null ? null : phone.optString("passphrase", null);
        db = new JdbcSqlDb(new File(folder.getRoot(), "outbox.db").getPath());
        startAgent();
    }

    /** The agent on the database as it is (the app starting, or starting again on the same boot of the phone). */
    private void startAgent() {
        SqlOutboxStore store = new SqlOutboxStore(db);
        store.createSchema();
        inbox = new Inbox(db);
        outbox = Outbox.open(store, loop, "boot-1");
        agent = new Agent(new Credentials("https://hub", "device_1", "dtk_1", "wss://hub/v1/agent"), outbox, inbox, sender,
                transport, loop, loop, BackoffTest.fixed(0), Logger.STDERR, new Agent.Listener() {
                    @Override
                    public void onStatus(Agent.Status status) {
                    }

                    @Override
                    public void onFatal(HubClient.Fatal f, String message) {
                        throw new AssertionError("the agent stopped: " + message);
                    }
                }, resendMs);
        agent.start();
        loop.runDue();
        transport.last().open();
        loop.runDue();
    }

    /** Plays one step's input: a hub frame, a phone event, a connection change or time passing. */
    private void play(JSONObject step) throws Exception {
        if (step.optBoolean("restart")) {
            agent.stop();
            loop.runDue();
            startAgent();
        } else if (step.has("hub")) {
            transport.last().hear(frames.substitute(step.getJSONObject("hub")).toString());
        } else if (step.has("phone")) {
            phone(step.getJSONObject("phone"));
        } else if (step.has("wait_ms")) {
            loop.advance(step.getLong("wait_ms"));
        } else if ("drop".equals(step.optString("connection"))) {
            dropped = transport.last();
            dropped.end(1006, 0);
        } else if ("reconnect".equals(step.optString("connection"))) {
            // The agent waits its backoff (its random draw is 0 here), then opens a new connection.
            for (int waited = 0; transport.last() == dropped && waited <= 60000; waited += 100) loop.advance(100);
            if (transport.last() == dropped) fail("the agent did not reconnect within 60 s");
            transport.last().open();
        } else {
            fail("a step with nothing to play: " + step);
        }
        loop.runDue();
    }

    /** A fixture's phone event as Android reports it: one part, sent or delivered, or a sent result that failed. */
    private void phone(JSONObject event) throws Exception {
        String id = event.optString("message_id");
        String kind = event.getString("event");
        if ("sent".equals(kind)) {
            SmsResults.sent(outbox, id, 0, SendFailures.RESULT_OK, -1);
        } else if ("delivered".equals(kind)) {
            SmsResults.delivered(outbox, id, 0, "3gpp", StatusReportsTest.statusReport(0), 0);
        } else if ("failed".equals(kind)) {
            int[] result = androidResultOf(event.getString("cause"));
            SmsResults.sent(outbox, id, 0, result[0], result[1]);
        } else if ("received".equals(kind)) {
            // As SmsReceiver writes it: sealed with the owner's passphrase when one is set.
            inbox.receive(event.getString("from"), event.getString("text"), event.optInt("sim", 0), loop.now(), passphrase);
        } else {
            fail("unknown phone event " + kind);
        }
    }

    /** Android's sent result and network cause (3GPP TS 24.011) for a fixture's cause of failure. */
    private static int[] androidResultOf(String cause) {
        if ("radio_off".equals(cause)) return new int[] {SendFailures.RADIO_OFF, -1};
        if ("INVALID_NUMBER".equals(cause)) return new int[] {SendFailures.NETWORK_REJECT, 1};
        if ("INSUFFICIENT_CREDIT".equals(cause)) return new int[] {SendFailures.NETWORK_REJECT, 8};
        if ("BLACKLISTED".equals(cause)) return new int[] {SendFailures.NETWORK_REJECT, 21};
        if ("OUT_OF_NETWORK".equals(cause)) return new int[] {SendFailures.NETWORK_REJECT, 27};
        throw new IllegalArgumentException("unknown cause " + cause);
    }

    private List<String> sent() {
        List<String> all = new ArrayList<String>();
        for (FakeTransport.Conn c : transport.connections) all.addAll(c.sent);
        return all;
    }

    private JSONObject outboxOf(JSONObject expected) throws Exception {
        JSONObject out = new JSONObject();
        for (Iterator<String> ids = expected.keys(); ids.hasNext();) {
            String id = ids.next();
            OutboxEntry e = outbox.get(id);
            if (e == null) {
                out.put(id, JSONObject.NULL);
                continue;
            }
            JSONArray reports = new JSONArray();
            for (OutboxEntry.PendingReport r : e.reports) reports.put(r.status);
            out.put(id, new JSONObject().put("state", e.state).put("unacked_reports", reports));
        }
        return out;
    }

    private static boolean contains(JSONArray array, String value) throws Exception {
        for (int i = 0; i < array.length(); i++) {
            if (value.equals(array.getString(i))) return true;
        }
        return false;
    }

    private static List<String> strings(JSONArray array) throws Exception {
        List<String> out = new ArrayList<String>();
        for (int i = 0; i < array.length(); i++) out.add(array.getString(i));
        return out;
    }
}
