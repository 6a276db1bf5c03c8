package org.smsgw.agent.core;

import static org.junit.Assert.assertEquals;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.Test;

/** The telemetry's signal per SIM: every active SIM by its slot, each from its own subscription. */
public class SimSignalsTest {
    private static final class FakeSubscriptions implements Subscriptions {
        List<Info> active;

        @Override
        public List<Info> active() {
            return active;
        }

        @Override
        public int defaultSmsSubscriptionId() {
            return INVALID_ID;
        }
    }

    private static final class FakeRadio implements SimSignals.Radio {
        final Map<Integer, SimSignals.Reading> readings = new HashMap<Integer, SimSignals.Reading>();
        final List<Integer> asked = new ArrayList<Integer>();

        @Override
        public SimSignals.Reading read(int subscriptionId) {
            asked.add(subscriptionId);
            if (subscriptionId == 99) throw new SecurityException("READ_PHONE_STATE");
            return readings.get(subscriptionId);
        }
    }

    private static String describe(List<Telemetry.SimSignal> signals) {
        StringBuilder s = new StringBuilder();
        for (Telemetry.SimSignal sim : signals) {
            s.append(sim.slot).append(':').append(sim.network).append('/').append(sim.level).append('/').append(sim.dbm).append(' ');
        }
        return s.toString().trim();
    }

    private final FakeSubscriptions subscriptions = new FakeSubscriptions();
    private final FakeRadio radio = new FakeRadio();
    private final SimSignals signals = new SimSignals(new PhoneSims(subscriptions, new Logger() {
        @Override
        public void info(String message) {}

        @Override
        public void warn(String message, Throwable error) {}
    }), radio);

    @Test
    public void whenAPhoneHasTwoSimsThenEachReportsItsOwnSubscriptionsSignalBySlot() {
        // Listed out of order: slot index 1 (SIM 2) first.
        subscriptions.active = Arrays.asList(new Subscriptions.Info(1, "Orange", null, 12), new Subscriptions.Info(0, "Free", null, 7));
        radio.readings.put(7, new SimSignals.Reading(4, -85, 13));
        radio.readings.put(12, new SimSignals.Reading(1, -112, 2));

        assertEquals("1:lte/4/-85 2:2g/1/-112", describe(signals.read()));
    }

    @Test
    public void whenOneSimsReadingFailsOrIsMissingThenThatSimIsReportedUnknownAndTheOthersStill() {
        subscriptions.active = Arrays.asList(new Subscriptions.Info(0, "Free", null, 99), new Subscriptions.Info(1, "Orange", null, 12),
                new Subscriptions.Info(2, "SFR", null, 13));
        radio.readings.put(12, new SimSignals.Reading(3, -95, 20));

        assertEquals("1:unknown/-1/0 2:5g/3/-95 3:unknown/-1/0", describe(signals.read()));
    }

    @Test
    public void whenTheSimsCannotBeListedThenTheDefaultSubscriptionIsSlotOneAndAPhoneWithoutSimReportsNone() {
        subscriptions.active = null;
        radio.readings.put(Subscriptions.INVALID_ID, new SimSignals.Reading(2, -101, 13));
        assertEquals("1:lte/2/-101", describe(signals.read()));
        assertEquals(Arrays.asList(Subscriptions.INVALID_ID), radio.asked);

        radio.readings.clear();
        assertEquals("", describe(signals.read()));
        subscriptions.active = new ArrayList<Subscriptions.Info>();
        assertEquals("", describe(signals.read()));
    }

    @Test
    public void whenAndroidGivesValuesOutOfRangeThenTheyAreUnknown() {
        subscriptions.active = Arrays.asList(new Subscriptions.Info(0, "Free", null, 7));
        // CellSignalStrength.UNAVAILABLE is Integer.MAX_VALUE.
        radio.readings.put(7, new SimSignals.Reading(7, Integer.MAX_VALUE, 0));
        assertEquals("1:unknown/-1/0", describe(signals.read()));
    }
}
