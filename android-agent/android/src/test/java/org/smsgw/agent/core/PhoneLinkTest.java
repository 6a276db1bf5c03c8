package org.smsgw.agent.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.json.JSONArray;
import org.json.JSONObject;
import org.junit.After;
import org.junit.Before;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Protocol 6 through the core: telemetry, the log on request, the pushed settings; nothing of it with an older hub. */
public class PhoneLinkTest {
    @Rule
    public TemporaryFolder folder = new TemporaryFolder();

    private final ManualLoop loop = new ManualLoop();
    private final FakeTransport transport = new FakeTransport();
    private final LogRing ring = new LogRing();
    private final List<String> kept = new ArrayList<String>();
    private int battery = 40;
    private boolean charging = false;
    private JdbcSqlDb db;

    @Before
    public void start() {
        db = new JdbcSqlDb(new File(folder.getRoot(), "outbox.db").getPath());
        SqlOutboxStore store = new SqlOutboxStore(db);
        store.createSchema();
        Logger log = ring.tee(Logger.STDERR, loop);
        Agent agent = new Agent(new Credentials("https://hub", "device_1", "dtk_1", "wss://hub/v1/agent"), Outbox.open(store, loop, "boot-1"),
                new Inbox(db), new RecordingSender(), transport, loop, loop, BackoffTest.fixed(0.5), log, new Agent.Listener() {
                    @Override
                    public void onStatus(Agent.Status status) {
                    }

                    @Override
                    public void onFatal(HubClient.Fatal f, String message) {
                    }
                }, 1000);
        agent.usePhone(new PhoneLink(new Telemetry.Source() {
            @Override
            public Telemetry read() {
                return new Telemetry(battery, charging, Arrays.asList(new Telemetry.SimSignal(1, 3, -95, "lte")), 2048, "1.2.0", "15",
                        Collections.singletonList("battery_optimized"));
            }
        }, ring, new PhoneLink.SettingsStore() {
            @Override
            public void save(String settingsJson) {
                kept.add(settingsJson);
            }
        }, loop, loop, log, 1000, 20000));
        agent.start();
        loop.runDue();
    }

    @After
    public void close() {
        db.close();
    }

    private FakeTransport.Conn connected(int protocol) {
        FakeTransport.Conn c = transport.last();
        c.open();
        c.hear("{\"type\":\"hello\",\"protocol\":" + protocol + ",\"device_id\":\"device_1\",\"ping_interval_ms\":25000}");
        loop.runDue();
        return c;
    }

    @Test
    public void whenTheHubSpeaks6ThenTelemetryGoesAtHelloOnASignificantChangeAndEveryInterval() throws Exception {
        FakeTransport.Conn c = connected(6);
        assertEquals(1, c.sentOfType("telemetry").size());
        JSONObject first = new JSONObject(c.sentOfType("telemetry").get(0));
        assertEquals(40, first.getInt("battery"));
        assertFalse(first.getBoolean("charging"));
        assertEquals("lte", first.getJSONArray("sims").getJSONObject(0).getString("network"));
        assertEquals(-95, first.getJSONArray("sims").getJSONObject(0).getInt("dbm"));
        assertEquals(2048, first.getLong("storage_free_mb"));
        assertEquals("battery_optimized", first.getJSONArray("risks").getString(0));

        battery = 37; // a small move: nothing
        loop.advance(1000);
        assertEquals(1, c.sentOfType("telemetry").size());
        battery = 14; // crosses the low threshold: at once
        loop.advance(1000);
        assertEquals(2, c.sentOfType("telemetry").size());
        assertEquals(14, new JSONObject(c.sentOfType("telemetry").get(1)).getInt("battery"));
        loop.advance(21000); // the interval: again, unchanged
        assertEquals(3, c.sentOfType("telemetry").size());
    }

    @Test
    public void whenTheHubSpeaks5ThenNoTelemetryGoes() {
        FakeTransport.Conn c = connected(5);
        loop.advance(120000);
        assertEquals(0, c.sentOfType("telemetry").size());
    }

    @Test
    public void whenTheHubAsksForTheLogThenTheRecentLinesGoRedacted() throws Exception {
        FakeTransport.Conn c = connected(6);
        ring.add("INFO SMS received from=+33612345678 text=\"Mon code 9876\"");
        c.hear("{\"type\":\"log_request\"}");
        loop.runDue();
        JSONArray lines = new JSONObject(c.sentOfType("log").get(0)).getJSONArray("lines");
        String all = lines.toString();
        assertTrue(all.contains("from=[redacted] text=[redacted]"));
        assertTrue(all.contains("hub said hello") || all.contains("the hub asked for the log"));
        assertFalse(all.contains("612345678"));
        assertFalse(all.contains("Mon code"));
    }

    @Test
    public void whenTheHubPushesSettingsThenTheyAreKeptAndAcknowledgedWithWhatWasApplied() throws Exception {
        FakeTransport.Conn c = connected(6);
        c.hear("{\"type\":\"settings\",\"version\":\"v9\",\"limits\":{\"per_minute\":5},\"sim_rule\":{\"rule\":\"default\",\"default_sim\":2}}");
        loop.runDue();
        JSONObject applied = new JSONObject(c.sentOfType("settings_applied").get(0));
        assertEquals("v9", applied.getString("version"));
        assertEquals("[\"limits\",\"sim_rule\"]", applied.getJSONArray("applied").toString());
        assertEquals(5, new JSONObject(kept.get(0)).getJSONObject("limits").getInt("per_minute"));
        c.hear("{\"type\":\"settings\"}");
        loop.runDue();
        assertEquals(1, c.sentOfType("settings_applied").size());
    }
}
