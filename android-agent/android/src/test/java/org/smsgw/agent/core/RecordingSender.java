package org.smsgw.agent.core;

import java.util.ArrayList;
import java.util.List;

/** A stand-in for SmsManager: splits like GSM-7 (160, then 153 a part) and records every hand-over. */
public final class RecordingSender implements SmsSender {
    public final List<String> sent = new ArrayList<String>();
    /** The text of each SMS sent, its parts joined. */
    public final List<String> texts = new ArrayList<String>();
    /** The SIM each hand-over went through, "default" when none was given. */
    public final List<String> through = new ArrayList<String>();
    public SmsError refuseWith;
    /** What {@link #sims()} answers: null (unknown) unless a test sets the phone's SIMs. */
    public volatile List<Sim> sims;
    public volatile int defaultSlot;
    /** Thrown by {@link #sims()} when set. */
    public volatile RuntimeException simsError;

    @Override
    public List<String> divide(String text) {
        List<String> parts = new ArrayList<String>();
        if (text.length() <= 160) {
            parts.add(text);
            return parts;
        }
        for (int i = 0; i < text.length(); i += 153) parts.add(text.substring(i, Math.min(text.length(), i + 153)));
        return parts;
    }

    @Override
    public List<Sim> sims() {
        if (simsError != null) throw simsError;
        return sims;
    }

    @Override
    public int defaultSlot() {
        return defaultSlot;
    }

    @Override
    public synchronized void send(String messageId, String to, List<String> parts, Sim sim) throws Refused {
        if (refuseWith != null) throw new Refused(refuseWith);
        sent.add(messageId);
        StringBuilder text = new StringBuilder();
        for (String part : parts) text.append(part);
        texts.add(text.toString());
        through.add(sim == null ? "default" : "sub" + sim.subscriptionId);
    }

    public synchronized int count(String messageId) {
        int n = 0;
        for (String id : sent) {
            if (id.equals(messageId)) n++;
        }
        return n;
    }
}
