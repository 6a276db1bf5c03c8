package org.smsgw.agent.app;

import android.content.Context;
import android.os.Build;
import android.telephony.SmsManager;
import android.telephony.TelephonyManager;
import java.lang.reflect.Method;
import java.util.List;
import org.smsgw.agent.core.SimSignals;
import org.smsgw.agent.core.Subscriptions;

/**
 * Android's radio behind {@link SimSignals.Radio}: one subscription's signal level (API 28), the
 * serving cell's dBm (API 29) and network type, through TelephonyManager.createForSubscriptionId
 * (API 24). Compiled against API 23, so the newer calls go through reflection; on Android 6 only
 * the default SMS subscription can be read (the others are unknown). Which SIM is which slot is
 * the core's (SimSignals, PhoneSims).
 */
final class AndroidRadio implements SimSignals.Radio {
    private static final SimSignals.Reading UNKNOWN = new SimSignals.Reading(-1, 0, 0);

    private final Context context;

    AndroidRadio(Context context) {
        this.context = context.getApplicationContext();
    }

    @Override
    public SimSignals.Reading read(int subscriptionId) {
        TelephonyManager base = (TelephonyManager) context.getSystemService(Context.TELEPHONY_SERVICE);
        if (base == null) return null;
        TelephonyManager phone = base;
        if (subscriptionId == Subscriptions.INVALID_ID) {
            if (base.getSimState() != TelephonyManager.SIM_STATE_READY) return null;
        } else if (Build.VERSION.SDK_INT >= 24) {
            phone = forSubscription(base, subscriptionId);
            if (phone == null) return UNKNOWN;
        } else if (subscriptionId != SmsManager.getDefaultSmsSubscriptionId()) {
            return UNKNOWN;
        }
        return new SimSignals.Reading(level(phone), dbm(phone), networkType(phone));
    }

    private static TelephonyManager forSubscription(TelephonyManager base, int subscriptionId) {
        try {
            Object phone = TelephonyManager.class.getMethod("createForSubscriptionId", int.class).invoke(base, subscriptionId);
            return phone instanceof TelephonyManager ? (TelephonyManager) phone : null;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    private static int networkType(TelephonyManager phone) {
        try {
            return phone.getNetworkType();
        } catch (SecurityException e) {
            // Android 11 and later want READ_PHONE_STATE for it.
            return 0;
        }
    }

    /** TelephonyManager.getSignalStrength() (API 28); null before, or when refused. */
    private static Object strength(TelephonyManager phone) {
        if (Build.VERSION.SDK_INT < 28) return null;
        try {
            return TelephonyManager.class.getMethod("getSignalStrength").invoke(phone);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /** SignalStrength.getLevel(): 0 to 4; -1 unknown. */
    private static int level(TelephonyManager phone) {
        Object strength = strength(phone);
        if (strength == null) return -1;
        try {
            Object level = strength.getClass().getMethod("getLevel").invoke(strength);
            return level instanceof Integer ? (Integer) level : -1;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return -1;
        }
    }

    /** The first CellSignalStrength's getDbm() (SignalStrength.getCellSignalStrengths, API 29); 0 unknown. */
    private static int dbm(TelephonyManager phone) {
        if (Build.VERSION.SDK_INT < 29) return 0;
        Object strength = strength(phone);
        if (strength == null) return 0;
        try {
            Method cells = strength.getClass().getMethod("getCellSignalStrengths");
            Object list = cells.invoke(strength);
            if (!(list instanceof List) || ((List<?>) list).isEmpty()) return 0;
            Object cell = ((List<?>) list).get(0);
            Object dbm = cell.getClass().getMethod("getDbm").invoke(cell);
            return dbm instanceof Integer ? (Integer) dbm : 0;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return 0;
        }
    }
}
