package org.smsgw.agent.core;

import java.util.List;
import java.util.regex.Pattern;

/** One active SIM of the phone (protocol 4): what {@code agent_hello} reports, and what an SMS is sent through. */
public final class Sim {
    /** The hub ignores an entry with a longer carrier or number, so a long carrier name is cut to this. */
    static final int MAX_TEXT_LENGTH = 64;
    private static final Pattern E164 = Pattern.compile("^\\+[1-9][0-9]{1,14}$");

    /** 1 for the first slot. */
    public final int slot;
    /** The carrier's name as the phone shows it; null when unknown. */
    public final String carrier;
    /** The SIM's number in E.164; null when the phone does not know it (or not in that form). */
    public final String number;
    /** Android's subscription id, which SmsManager sends through; opaque to the core. */
    public final int subscriptionId;

    public Sim(int slot, String carrier, String number, int subscriptionId) {
        this.slot = slot;
        this.carrier = carrier == null || carrier.trim().isEmpty() ? null : cut(carrier.trim());
        this.number = e164(number);
        this.subscriptionId = subscriptionId;
    }

    /**
     * What to send an SMS through. {@code sim} null: the phone's default SIM. {@code slot}: the
     * slot the reports name, 0 when unknown. {@code error}: the SMS must not be sent at all.
     */
    public static final class Choice {
        public final Sim sim;
        public final int slot;
        public final SmsError error;

        Choice(Sim sim, int slot, SmsError error) {
            this.sim = sim;
            this.slot = slot;
            this.error = error;
        }
    }

    /**
     * The SIM for an SMS that asked for {@code requested} (0: none). {@code sims} null means the
     * phone does not let the app read its SIMs: then the default SIM sends, as an agent of
     * version 3 would (the hub saw {@code sims: []}, so it takes this phone's SIMs as unknown).
     * A slot that is not among known SIMs is an error: the SMS is not sent (protocol 4).
     */
    public static Choice choose(int requested, List<Sim> sims, int defaultSlot) {
        if (requested <= 0 || sims == null) return new Choice(null, requested <= 0 ? defaultSlot : 0, null);
        for (Sim s : sims) {
            if (s.slot == requested) return new Choice(s, s.slot, null);
        }
        return new Choice(null, 0, absent(requested));
    }

    /** The error of an SMS asked through a slot the phone has no active SIM in (French, as the hub's). */
    public static SmsError absent(int slot) {
        return new SmsError(SmsError.DEVICE_ERROR, "SIM " + slot + " absente");
    }

    private static String cut(String s) {
        return s.length() <= MAX_TEXT_LENGTH ? s : s.substring(0, MAX_TEXT_LENGTH);
    }

    /** The number in E.164 (spaces, dashes, dots and brackets dropped), or null. */
    static String e164(String number) {
        if (number == null) return null;
        String n = number.replaceAll("[\\s\\-.()]", "");
        if (n.startsWith("00")) n = "+" + n.substring(2);
        return E164.matcher(n).matches() ? n : null;
    }

    @Override
    public String toString() {
        return "SIM " + slot + (carrier == null ? "" : " (" + carrier + ")");
    }
}
