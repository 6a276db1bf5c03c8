package org.smsgw.agent.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.junit.Test;

/** The pure rules of protocol 6 on the app: log redaction and its ring, telemetry's changes, the obstacles. */
public class DiagnosticsRulesTest {
    @Test
    public void whenALineHoldsNumbersAndTextsThenTheyAreMaskedAsTheNodeAgentMasksThem() {
        assertEquals("2026-11-29T01:00:00.000Z INFO SMS received received_id=ec58a765-b74f from=[redacted]",
                LogRing.redact("2026-11-29T01:00:00.000Z INFO SMS received received_id=ec58a765-b74f from=+33612345678"));
        assertEquals("INFO sending text=[redacted] to=[redacted] [number] message_id=msg_01M8JE0QZB4FBFFV5KPZ1RHPSD",
                LogRing.redact("INFO sending text=\"Bonjour Alice, code 4242\" to=+33 6 12 34 56 78 message_id=msg_01M8JE0QZB4FBFFV5KPZ1RHPSD"));
        assertEquals("WARN call [number] or [number] after [number] ms, attempt=3",
                LogRing.redact("WARN call 06 12 34 56 78 or +44 20 7946 0958 after 30000 ms, attempt=3"));
        StringBuilder longLine = new StringBuilder();
        for (int i = 0; i < 1000; i++) longLine.append('x');
        assertEquals(300, LogRing.redact(longLine.toString()).length());
    }

    @Test
    public void whenMoreLinesComeThanTheRingHoldsThenTheOldestGoAndAFrameKeepsTheNewestThatFit() {
        LogRing ring = new LogRing(3);
        for (String n : new String[] {"a", "b", "c", "d"}) ring.add("line " + n + " to=+33612345678");
        assertEquals(Arrays.asList("line b to=[redacted]", "line c to=[redacted]", "line d to=[redacted]"), ring.snapshot());
        assertEquals(Arrays.asList("2222222222", "3333333333"), LogRing.bounded(Arrays.asList("1111111111", "2222222222", "3333333333"), 30));
    }

    private static Telemetry t(int battery, boolean charging, String network, String... risks) {
        List<Telemetry.SimSignal> sims = new ArrayList<Telemetry.SimSignal>();
        if (network != null) sims.add(new Telemetry.SimSignal(1, 4, -80, network));
        return new Telemetry(battery, charging, sims, -1, "1", "15", Arrays.asList(risks));
    }

    @Test
    public void whenTheBatteryCrossesTheThresholdOrMovesTenPointsOrChargingNetworksOrRisksChangeThenItIsSignificant() {
        assertTrue(Telemetry.significantChange(null, t(50, true, "lte")));
        assertFalse(Telemetry.significantChange(t(50, true, "lte"), t(45, true, "lte")));
        assertTrue(Telemetry.significantChange(t(50, true, "lte"), t(40, true, "lte")));
        assertTrue(Telemetry.significantChange(t(16, false, "lte"), t(15, false, "lte")));
        assertTrue(Telemetry.significantChange(t(50, true, "lte"), t(50, false, "lte")));
        assertTrue(Telemetry.significantChange(t(50, true, "lte"), t(50, true, "3g")));
        assertTrue(Telemetry.significantChange(t(50, true, "lte"), t(50, true, "lte", "battery_optimized")));
        assertEquals("5g", Telemetry.networkOf(20));
        assertEquals("lte", Telemetry.networkOf(13));
        assertEquals("2g", Telemetry.networkOf(16));
    }

    @Test
    public void whenAnUnknownBatteryIsReportedThenTheFrameLeavesItOut() throws Exception {
        org.json.JSONObject frame = new org.json.JSONObject(new Telemetry(-1, false, Collections.<Telemetry.SimSignal>emptyList(), -1, "1", "15",
                Collections.<String>emptyList()).toFrame());
        assertFalse(frame.has("battery"));
        assertFalse(frame.has("storage_free_mb"));
        assertEquals("telemetry", frame.getString("type"));
    }

    private static List<String> ids(List<Obstacles.Obstacle> obstacles) {
        List<String> ids = new ArrayList<String>();
        for (Obstacles.Obstacle o : obstacles) ids.add(o.id);
        return ids;
    }

    @Test
    public void whenASideloadedAppOnAndroid15IsRefusedSmsWithoutADialogThenRestrictedSettingsComeFirstWithTheirStep() {
        Obstacles.PhoneState restricted = new Obstacles.PhoneState(35, true, false, true, false, false);
        List<Obstacles.Obstacle> found = Obstacles.of(restricted);
        assertEquals(Arrays.asList("sms_restricted", "battery_optimized", "no_boot_start"), ids(found));
        assertTrue(found.get(0).step.contains("Allow restricted settings"));
        assertEquals("restricted_settings", found.get(0).action);
        assertEquals(Arrays.asList("sms_restricted", "battery_optimized", "no_boot_start"), Obstacles.risks(restricted));
    }

    @Test
    public void whenThePermissionWasSimplyNotGrantedYetThenTheOrdinaryStepShowsAndNoRestrictionIsReported() {
        Obstacles.PhoneState fresh = new Obstacles.PhoneState(35, true, false, false, true, true);
        assertEquals(Arrays.asList("sms_permission"), ids(Obstacles.of(fresh)));
        assertTrue(Obstacles.risks(fresh).isEmpty());
        // From a store, or before Android 13, there are no restricted settings.
        assertEquals(Arrays.asList("sms_permission"), ids(Obstacles.of(new Obstacles.PhoneState(32, true, false, true, true, true))));
        assertTrue(Obstacles.of(new Obstacles.PhoneState(35, true, true, false, true, true)).isEmpty());
    }
}
