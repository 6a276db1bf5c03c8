package org.smsgw.agent.core;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;

/**
 * The phone's SIMs for protocol 4, from its subscriptions: what {@code agent_hello} lists, the
 * subscription each slot sends through, the default slot, and the slot of a subscription (a
 * received SMS that names only its subscription).
 */
public final class PhoneSims {
    private static final Comparator<Sim> BY_SLOT = new Comparator<Sim>() {
        @Override
        public int compare(Sim a, Sim b) {
            return a.slot < b.slot ? -1 : a.slot == b.slot ? 0 : 1;
        }
    };

    private final Subscriptions subscriptions;
    private final Logger log;

    public PhoneSims(Subscriptions subscriptions, Logger log) {
        this.subscriptions = subscriptions;
        this.log = log;
    }

    /**
     * The active SIMs ordered by slot (1 for the first), each with the subscription an SMS of that
     * slot goes through; empty when the phone has none; null when they cannot be read (no
     * permission, or Android failed), so that the hub takes them as unknown. A profile in no slot
     * (an eSIM not inserted) or without a subscription id cannot be sent through and is left out;
     * of two subscriptions claiming one slot the first listed is kept, since the hub keys SIMs by
     * slot. Never throws.
     */
    public List<Sim> sims() {
        List<Subscriptions.Info> infos;
        try {
            infos = subscriptions.active();
        } catch (RuntimeException e) {
            log.warn("could not list the SIMs", e);
            return null;
        }
        if (infos == null) return null;
        List<Sim> sims = new ArrayList<Sim>();
        for (Subscriptions.Info info : infos) {
            if (info == null || info.slotIndex < 0 || info.subscriptionId < 0) continue;
            if (slotTaken(sims, info.slotIndex + 1)) continue;
            sims.add(new Sim(info.slotIndex + 1, info.carrier, info.number, info.subscriptionId));
        }
        Collections.sort(sims, BY_SLOT);
        return sims;
    }

    /**
     * The slot Android sends through when an SMS names none: the default SMS subscription's; with
     * no default set (or an unknown one), the only SIM of a phone that has one; else 0 (unknown).
     */
    public int defaultSlot() {
        List<Sim> sims = sims();
        if (sims == null) return 0;
        int subscriptionId;
        try {
            subscriptionId = subscriptions.defaultSmsSubscriptionId();
        } catch (RuntimeException e) {
            subscriptionId = Subscriptions.INVALID_ID;
        }
        if (subscriptionId != Subscriptions.INVALID_ID) {
            for (Sim sim : sims) {
                if (sim.subscriptionId == subscriptionId) return sim.slot;
            }
        }
        return sims.size() == 1 ? sims.get(0).slot : 0;
    }

    /** The slot of an active SIM's subscription; 0 when no known SIM has it (or the SIMs are unknown). */
    public int slotOfSubscription(int subscriptionId) {
        if (subscriptionId < 0) return 0;
        List<Sim> sims = sims();
        if (sims == null) return 0;
        for (Sim sim : sims) {
            if (sim.subscriptionId == subscriptionId) return sim.slot;
        }
        return 0;
    }

    private static boolean slotTaken(List<Sim> sims, int slot) {
        for (Sim sim : sims) {
            if (sim.slot == slot) return true;
        }
        return false;
    }
}
