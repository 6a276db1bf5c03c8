package org.smsgw.agent.core;

import java.util.List;

/**
 * The phone's SIM subscriptions as Android lists them: SubscriptionManager on the phone, a
 * stand-in in the JVM tests. {@link PhoneSims} makes the protocol's SIMs of them.
 */
public interface Subscriptions {
    /** SubscriptionManager.INVALID_SUBSCRIPTION_ID: no subscription (no default SIM set, say). */
    int INVALID_ID = -1;

    /** One active subscription, with Android's values as they are. */
    final class Info {
        /** SubscriptionInfo.getSimSlotIndex(): 0 for the first slot, negative for a profile in no slot. */
        public final int slotIndex;
        /** The carrier's name; null when unknown. */
        public final String carrier;
        /** The number as the phone has it, in any form; null when unknown or not readable. */
        public final String number;
        public final int subscriptionId;

        public Info(int slotIndex, String carrier, String number, int subscriptionId) {
            this.slotIndex = slotIndex;
            this.carrier = carrier;
            this.number = number;
            this.subscriptionId = subscriptionId;
        }
    }

    /**
     * The active subscriptions, in any order; empty when the phone has no SIM; null when the app
     * may not read them (READ_PHONE_STATE refused). May throw: the caller copes.
     */
    List<Info> active();

    /** The subscription Android sends SMS through by default; {@link #INVALID_ID} when none is set. May throw. */
    int defaultSmsSubscriptionId();
}
