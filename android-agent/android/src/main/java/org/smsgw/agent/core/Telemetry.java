package org.smsgw.agent.core;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.json.JSONArray;
import org.json.JSONException;
import org.json.JSONObject;

/**
 * What the phone reports of itself (protocol 6, frame {@code telemetry}): battery, signal and
 * network per SIM, free storage, versions, and why the system may stop the app. The app's edge
 * reads Android into one of these; the rules (the frame, a significant change) are here.
 */
public final class Telemetry {
    /** A battery at or below this, not charging, is low (the hub warns the owner). */
    public static final int BATTERY_LOW_PCT = 15;
    /** Telemetry goes at least this often while connected. */
    public static final long INTERVAL_MS = 5 * 60000;
    /** How often the phone's state is read for a significant change. */
    public static final long SAMPLE_MS = 30000;

    /** Where the app reads its state (Android at the edge; a fake in tests). */
    public interface Source {
        Telemetry read();
    }

    /** One SIM's signal: level 0 to 4 (-1 unknown), dBm (0 unknown), network 5g, lte, 3g, 2g, wifi, none or unknown. */
    public static final class SimSignal {
        public final int slot;
        public final int level;
        public final int dbm;
        public final String network;

        public SimSignal(int slot, int level, int dbm, String network) {
            this.slot = slot;
            this.level = level;
            this.dbm = dbm;
            this.network = network;
        }
    }

    /** 0 to 100, -1 unknown. */
    public final int battery;
    public final boolean charging;
    public final List<SimSignal> sims;
    /** MiB, -1 unknown. */
    public final long storageFreeMb;
    public final String appVersion;
    public final String androidVersion;
    /** battery_optimized, sms_restricted, no_boot_start. */
    public final List<String> risks;

    public Telemetry(int battery, boolean charging, List<SimSignal> sims, long storageFreeMb, String appVersion, String androidVersion,
            List<String> risks) {
        this.battery = battery;
        this.charging = charging;
        this.sims = Collections.unmodifiableList(new ArrayList<SimSignal>(sims));
        this.storageFreeMb = storageFreeMb;
        this.appVersion = appVersion;
        this.androidVersion = androidVersion;
        this.risks = Collections.unmodifiableList(new ArrayList<String>(risks));
    }

    /** Android's network type name (TelephonyManager.getDataNetworkType's constants) as the protocol names it. */
    public static String networkOf(int networkType) {
        switch (networkType) {
            case 20: // NETWORK_TYPE_NR
                return "5g";
            case 13: // LTE
            case 19: // LTE_CA
                return "lte";
            case 3: case 5: case 6: case 8: case 9: case 10: case 12: case 14: case 15: case 17: // UMTS, EVDO, HSPA, HSPAP, TD_SCDMA...
                return "3g";
            case 1: case 2: case 4: case 7: case 11: case 16: // GPRS, EDGE, CDMA, 1xRTT, IDEN, GSM
                return "2g";
            case 0:
                return "unknown";
            default:
                return "unknown";
        }
    }

    /** The {@code telemetry} frame: unknown values are left out. */
    public String toFrame() {
        try {
            JSONObject frame = new JSONObject().put("type", "telemetry").put("charging", charging);
            if (battery >= 0) frame.put("battery", battery);
            JSONArray simArray = new JSONArray();
            for (SimSignal s : sims) {
                JSONObject o = new JSONObject().put("slot", s.slot).put("network", s.network);
                if (s.level >= 0) o.put("level", s.level);
                if (s.dbm < 0) o.put("dbm", s.dbm);
                simArray.put(o);
            }
            frame.put("sims", simArray);
            if (storageFreeMb >= 0) frame.put("storage_free_mb", storageFreeMb);
            frame.put("app_version", appVersion).put("android_version", androidVersion);
            frame.put("risks", new JSONArray(risks));
            return frame.toString();
        } catch (JSONException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Whether {@code next} differs enough from what was last sent to go at once (the Node agent's
     * rule): charging changed, the battery crossed the low threshold or moved 10 points, a SIM's
     * network or a risk changed.
     */
    public static boolean significantChange(Telemetry last, Telemetry next) {
        if (last == null) return true;
        if (last.charging != next.charging) return true;
        if ((last.battery < 0) != (next.battery < 0)) return true;
        if (last.battery >= 0 && next.battery >= 0) {
            if ((last.battery <= BATTERY_LOW_PCT) != (next.battery <= BATTERY_LOW_PCT)) return true;
            if (Math.abs(last.battery - next.battery) >= 10) return true;
        }
        if (!networks(last).equals(networks(next))) return true;
        List<String> a = new ArrayList<String>(last.risks);
        List<String> b = new ArrayList<String>(next.risks);
        Collections.sort(a);
        Collections.sort(b);
        return !a.equals(b);
    }

    private static String networks(Telemetry t) {
        StringBuilder s = new StringBuilder();
        for (SimSignal sim : t.sims) s.append(sim.slot).append(':').append(sim.network).append(',');
        return s.toString();
    }
}
