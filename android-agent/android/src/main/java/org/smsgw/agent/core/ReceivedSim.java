package org.smsgw.agent.core;

/**
 * The SIM slot a received SMS came in on (protocol 3's {@code received.sim}), from the extras of
 * its {@code SMS_RECEIVED} intent. Android and vendors name the slot in several extras, and some
 * name only the subscription: a slot extra wins; else a subscription extra, looked up among the
 * phone's SIMs; else the slot is unknown (0) and the frame leaves {@code sim} out.
 */
public final class ReceivedSim {
    /** The intent's extras by name (Bundle.get on the phone). */
    public interface Extras {
        Object get(String name);
    }

    /**
     * Extras naming the slot, 0-based, newest first: Android 11's EXTRA_SLOT_INDEX, then AOSP's
     * older "slot" and "phone" (the phone id, which is the slot's) and vendors' names.
     */
    static final String[] SLOT_EXTRAS = {"android.telephony.extra.SLOT_INDEX", "slot", "slot_id", "simSlot", "phone"};
    /** Extras naming the subscription: Android 8's EXTRA_SUBSCRIPTION_INDEX, then AOSP's older "subscription". */
    static final String[] SUBSCRIPTION_EXTRAS = {"android.telephony.extra.SUBSCRIPTION_INDEX", "subscription"};
    /** A slot index this high or higher is not a phone's: the extra means something else. */
    static final int MAX_SLOTS = 8;

    private ReceivedSim() {}

    /**
     * The slot, 1 for the first; 0 when unknown. {@code sims} is only asked when no extra names
     * the slot (it reads Android's subscriptions).
     */
    public static int slotOf(Extras extras, PhoneSims sims) {
        if (extras == null) return 0;
        for (String name : SLOT_EXTRAS) {
            Integer index = intOf(extras, name);
            if (index != null && index >= 0 && index < MAX_SLOTS) return index + 1;
        }
        for (String name : SUBSCRIPTION_EXTRAS) {
            Integer subscriptionId = intOf(extras, name);
            // Integer.MAX_VALUE is SubscriptionManager.DEFAULT_SUBSCRIPTION_ID: "the default", not a SIM.
            if (subscriptionId == null || subscriptionId < 0 || subscriptionId == Integer.MAX_VALUE) continue;
            int slot = sims == null ? 0 : sims.slotOfSubscription(subscriptionId);
            if (slot > 0) return slot;
        }
        return 0;
    }

    private static Integer intOf(Extras extras, String name) {
        Object value = extras.get(name);
        return value instanceof Integer ? (Integer) value : null;
    }
}
