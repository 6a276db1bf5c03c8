package org.smsgw.agent.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.Test;

/**
 * The phone's SIMs from Android's subscriptions (the decisions AndroidSmsSender used to make over
 * SubscriptionManager): which slots exist, the subscription each slot sends through, the default
 * slot, and what an SMS for a slot the phone lacks gets.
 */
public class PhoneSimsTest {
    /** Android's subscriptions as a phone would list them; {@code active} null: no permission. */
    static final class FakeSubscriptions implements Subscriptions {
        List<Info> active = new ArrayList<Info>();
        int defaultId = INVALID_ID;
        RuntimeException failure;
        int reads;

        @Override
        public List<Info> active() {
            reads++;
            if (failure != null) throw failure;
            return active;
        }

        @Override
        public int defaultSmsSubscriptionId() {
            if (failure != null) throw failure;
            return defaultId;
        }
    }

    private final List<String> warnings = new ArrayList<String>();
    private final Logger log = new Logger() {
        @Override
        public void info(String message) {}

        @Override
        public void warn(String message, Throwable error) {
            warnings.add(message);
        }
    };

    private final FakeSubscriptions android = new FakeSubscriptions();
    private final PhoneSims phone = new PhoneSims(android, log);

    private static Subscriptions.Info info(int slotIndex, String carrier, int subscriptionId) {
        return new Subscriptions.Info(slotIndex, carrier, null, subscriptionId);
    }

    @Test
    public void whenAndroidListsTwoSimsOutOfOrderThenTheyAreSlotsOneAndTwoInOrderEachWithItsSubscription() {
        android.active = Arrays.asList(info(1, "Free", 7), new Subscriptions.Info(0, " Orange F ", "06 12 34 56 78", 3));

        List<Sim> sims = phone.sims();

        assertEquals(2, sims.size());
        assertEquals(1, sims.get(0).slot);
        assertEquals("Orange F", sims.get(0).carrier);
        assertEquals(3, sims.get(0).subscriptionId);
        assertNull("a number not in E.164 is left out", sims.get(0).number);
        assertEquals(2, sims.get(1).slot);
        assertEquals(7, sims.get(1).subscriptionId);
    }

    @Test
    public void whenTheAppMayNotReadTheSimsThenTheyAreUnknownAndTheDefaultSlotIsUnknown() {
        android.active = null;
        android.defaultId = 3;

        assertNull(phone.sims());
        assertEquals(0, phone.defaultSlot());
    }

    @Test
    public void whenThePhoneHasNoSimThenTheListIsEmptyNotUnknown() {
        assertEquals(0, phone.sims().size());
        assertEquals(0, phone.defaultSlot());
    }

    @Test
    public void whenAndroidFailsToListTheSimsThenTheyAreUnknownAndTheFailureIsLoggedNotThrown() {
        android.failure = new SecurityException("READ_PHONE_STATE withdrawn");

        assertNull(phone.sims());
        assertEquals(0, phone.defaultSlot());
        assertEquals(0, phone.slotOfSubscription(3));
        assertEquals(Arrays.asList("could not list the SIMs", "could not list the SIMs", "could not list the SIMs"), warnings);
    }

    @Test
    public void whenAProfileIsInNoSlotOrHasNoSubscriptionThenItIsLeftOutAndASlotClaimedTwiceKeepsTheFirst() {
        android.active = Arrays.asList(info(-1, "eSIM not inserted", 9), info(0, "Orange", Subscriptions.INVALID_ID), info(1, "Free", 7),
                info(1, "Free bis", 8));

        List<Sim> sims = phone.sims();

        assertEquals(1, sims.size());
        assertEquals(2, sims.get(0).slot);
        assertEquals("Free", sims.get(0).carrier);
        assertEquals(7, sims.get(0).subscriptionId);
    }

    @Test
    public void whenAnSmsAsksForASlotThenItGoesThroughThatSlotsSubscription() {
        android.active = Arrays.asList(info(0, "Orange", 3), info(1, "Free", 7));

        Sim.Choice second = Sim.choose(2, phone.sims(), 0);

        assertEquals(2, second.slot);
        assertEquals(7, second.sim.subscriptionId);
        assertNull(second.error);
    }

    @Test
    public void whenAnSmsAsksForASlotThePhoneLacksThenItIsNotSentAndFailsSimAbsente() {
        android.active = Arrays.asList(info(0, "Orange", 3), info(-1, "eSIM not inserted", 9));

        Sim.Choice choice = Sim.choose(2, phone.sims(), 0);

        assertNull(choice.sim);
        assertEquals(0, choice.slot);
        assertEquals(SmsError.DEVICE_ERROR, choice.error.code);
        assertEquals("SIM 2 absente", choice.error.message);
    }

    @Test
    public void whenTheSimsAreUnknownThenAnSmsForAnySlotGoesThroughTheDefaultSmsManager() {
        android.active = null;

        Sim.Choice choice = Sim.choose(2, phone.sims(), 0);

        assertNull("no SIM: the default SmsManager", choice.sim);
        assertNull(choice.error);
        assertEquals(0, choice.slot);
    }

    @Test
    public void whenTheDefaultSmsSubscriptionIsASimsThenItsSlotIsTheDefault() {
        android.active = Arrays.asList(info(0, "Orange", 3), info(1, "Free", 7));
        android.defaultId = 7;

        assertEquals(2, phone.defaultSlot());
        Sim.Choice choice = Sim.choose(0, phone.sims(), phone.defaultSlot());
        assertNull("an SMS that names no SIM goes through the default SmsManager", choice.sim);
        assertEquals(2, choice.slot);
    }

    @Test
    public void whenNoDefaultIsSetThenAPhoneWithOneSimUsesItAndAPhoneWithTwoSaysUnknown() {
        android.active = Arrays.asList(info(1, "Free", 7));
        assertEquals(2, phone.defaultSlot());

        android.active = Arrays.asList(info(0, "Orange", 3), info(1, "Free", 7));
        assertEquals(0, phone.defaultSlot());

        android.defaultId = 42; // a subscription no active SIM has (a SIM removed)
        assertEquals(0, phone.defaultSlot());
    }

    @Test
    public void whenASubscriptionIsLookedUpThenItsSlotIsGivenAndAnUnknownOneIsZero() {
        android.active = Arrays.asList(info(0, "Orange", 3), info(1, "Free", 7));

        assertEquals(2, phone.slotOfSubscription(7));
        assertEquals(1, phone.slotOfSubscription(3));
        assertEquals(0, phone.slotOfSubscription(5));
        assertEquals(0, phone.slotOfSubscription(Subscriptions.INVALID_ID));
        assertEquals("a lookup reads the subscriptions each time (a SIM may have been removed)", 3, android.reads);
    }
}
