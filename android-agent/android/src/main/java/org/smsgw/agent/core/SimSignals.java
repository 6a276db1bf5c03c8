package org.smsgw.agent.core;

import java.util.ArrayList;
import java.util.List;

/**
 * The signal of every SIM for the {@code telemetry} frame (protocol 6): one entry per active SIM,
 * by its slot, each read from its own subscription; the app's edge only reads Android's radio.
 */
public final class SimSignals {
    /** What Android says of one subscription's radio; unknown values as Android gives none. */
    public static final class Reading {
        /** SignalStrength.getLevel(): 0 to 4; -1 unknown. */
        public final int level;
        /** The serving cell's dBm; 0 (or anything not negative) unknown. */
        public final int dbm;
        /** TelephonyManager's network type constant; 0 unknown. */
        public final int networkType;

        public Reading(int level, int dbm, int networkType) {
            this.level = level;
            this.dbm = dbm;
            this.networkType = networkType;
        }
    }

    /** Android's radio at the edge (a fake in tests). */
    public interface Radio {
        /**
         * The reading of this subscription; {@link Subscriptions#INVALID_ID} for the phone's default
         * one. Null when there is no SIM ready there. May throw: the caller counts it unknown.
         */
        Reading read(int subscriptionId);
    }

    private final PhoneSims sims;
    private final Radio radio;

    public SimSignals(PhoneSims sims, Radio radio) {
        this.sims = sims;
        this.radio = radio;
    }

    /**
     * Each active SIM's signal, ordered by slot. When the SIMs cannot be listed (no permission to
     * read them), the default subscription's signal as slot 1, if a SIM is ready; a phone without
     * a SIM reports none. A SIM whose reading fails is reported with everything unknown. Never throws.
     */
    public List<Telemetry.SimSignal> read() {
        List<Telemetry.SimSignal> out = new ArrayList<Telemetry.SimSignal>();
        List<Sim> active = sims.sims();
        if (active == null) {
            Reading reading = safeRead(Subscriptions.INVALID_ID);
            if (reading != null) out.add(signal(1, reading));
            return out;
        }
        for (Sim sim : active) {
            Reading reading = safeRead(sim.subscriptionId);
            out.add(signal(sim.slot, reading == null ? new Reading(-1, 0, 0) : reading));
        }
        return out;
    }

    private Reading safeRead(int subscriptionId) {
        try {
            return radio.read(subscriptionId);
        } catch (RuntimeException e) {
            return new Reading(-1, 0, 0);
        }
    }

    /** The protocol's values: a level outside 0 to 4 and a dBm outside -200 to -1 are unknown. */
    static Telemetry.SimSignal signal(int slot, Reading r) {
        int level = r.level >= 0 && r.level <= 4 ? r.level : -1;
        int dbm = r.dbm < 0 && r.dbm >= -200 ? r.dbm : 0;
        return new Telemetry.SimSignal(slot, level, dbm, Telemetry.networkOf(r.networkType));
    }
}
