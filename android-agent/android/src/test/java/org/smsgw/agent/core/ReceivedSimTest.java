package org.smsgw.agent.core;

import static org.junit.Assert.assertEquals;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import org.junit.Test;

/** The SIM slot of a received SMS, from its SMS_RECEIVED intent's extras (what SmsReceiver.simOf decided). */
public class ReceivedSimTest {
    private final PhoneSimsTest.FakeSubscriptions android = new PhoneSimsTest.FakeSubscriptions();
    private final PhoneSims phone = new PhoneSims(android, Logger.STDERR);

    private static ReceivedSim.Extras extras(Object... pairs) {
        final Map<String, Object> map = new HashMap<String, Object>();
        for (int i = 0; i < pairs.length; i += 2) map.put((String) pairs[i], pairs[i + 1]);
        return new ReceivedSim.Extras() {
            @Override
            public Object get(String name) {
                return map.get(name);
            }
        };
    }

    @Test
    public void whenAndroidElevenNamesTheSlotThenTheSmsCameInOnThatSlotCountedFromOne() {
        assertEquals(2, ReceivedSim.slotOf(extras("android.telephony.extra.SLOT_INDEX", 1), phone));
        assertEquals(1, ReceivedSim.slotOf(extras("android.telephony.extra.SLOT_INDEX", 0), phone));
        assertEquals("the SIMs are not read when an extra names the slot", 0, android.reads);
    }

    @Test
    public void whenOnlyAnOlderOrVendorExtraNamesTheSlotThenItIsUsed() {
        assertEquals(2, ReceivedSim.slotOf(extras("slot", 1), phone));
        assertEquals(2, ReceivedSim.slotOf(extras("slot_id", 1), phone));
        assertEquals(2, ReceivedSim.slotOf(extras("simSlot", 1), phone));
        assertEquals(2, ReceivedSim.slotOf(extras("phone", 1), phone));
    }

    @Test
    public void whenSeveralExtrasDisagreeThenTheNewestNameWins() {
        assertEquals(1, ReceivedSim.slotOf(extras("phone", 1, "android.telephony.extra.SLOT_INDEX", 0), phone));
    }

    @Test
    public void whenASlotExtraIsNotASlotThenTheNextOneIsRead() {
        assertEquals(2, ReceivedSim.slotOf(extras("android.telephony.extra.SLOT_INDEX", -1, "slot", "0", "phone", 1), phone));
        assertEquals(0, ReceivedSim.slotOf(extras("slot", 8), phone));
        assertEquals(0, ReceivedSim.slotOf(extras("slot", 1L), phone));
    }

    @Test
    public void whenOnlyTheSubscriptionIsNamedThenTheSlotOfThatSimIsUsed() {
        android.active = Arrays.asList(new Subscriptions.Info(0, "Orange", null, 3), new Subscriptions.Info(1, "Free", null, 7));

        assertEquals(2, ReceivedSim.slotOf(extras("android.telephony.extra.SUBSCRIPTION_INDEX", 7), phone));
        assertEquals(1, ReceivedSim.slotOf(extras("subscription", 3), phone));
    }

    @Test
    public void whenTheSubscriptionIsNoKnownSimsOrTheSimsCannotBeReadThenTheSlotIsUnknown() {
        android.active = Arrays.asList(new Subscriptions.Info(0, "Orange", null, 3));
        assertEquals(0, ReceivedSim.slotOf(extras("subscription", 7), phone));
        assertEquals("DEFAULT_SUBSCRIPTION_ID is no SIM", 0, ReceivedSim.slotOf(extras("subscription", Integer.MAX_VALUE), phone));

        android.active = null;
        assertEquals(0, ReceivedSim.slotOf(extras("subscription", 3), phone));
    }

    @Test
    public void whenNoExtraSaysThenTheSlotIsUnknown() {
        assertEquals(0, ReceivedSim.slotOf(extras(), phone));
        assertEquals(0, ReceivedSim.slotOf(null, phone));
    }
}
