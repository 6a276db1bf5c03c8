package org.smsgw.agent.app;

import android.Manifest;
import android.content.Context;
import android.content.pm.PackageManager;
import android.os.Build;
import android.telephony.SmsManager;
import android.telephony.SubscriptionInfo;
import android.telephony.SubscriptionManager;
import java.util.ArrayList;
import java.util.List;
import org.smsgw.agent.core.Subscriptions;

/**
 * SubscriptionManager behind {@link Subscriptions}: the active subscriptions (READ_PHONE_STATE;
 * without it, null), a SIM's number from getPhoneNumber with READ_PHONE_NUMBERS on API 33+ or
 * from SubscriptionInfo.getNumber before, and the default SMS subscription. What they mean for
 * the protocol is decided in {@link org.smsgw.agent.core.PhoneSims}.
 */
final class AndroidSubscriptions implements Subscriptions {
    // Manifest.permission.READ_PHONE_NUMBERS, API 26.
    static final String READ_PHONE_NUMBERS = "android.permission.READ_PHONE_NUMBERS";

    private final Context context;

    AndroidSubscriptions(Context context) {
        this.context = context;
    }

    @Override
    public List<Info> active() {
        if (context.checkSelfPermission(Manifest.permission.READ_PHONE_STATE) != PackageManager.PERMISSION_GRANTED) return null;
        SubscriptionManager subscriptions = SubscriptionManager.from(context);
        List<SubscriptionInfo> infos = subscriptions.getActiveSubscriptionInfoList();
        List<Info> active = new ArrayList<Info>();
        if (infos == null) return active; // no SIM
        for (SubscriptionInfo info : infos) {
            CharSequence carrier = info.getCarrierName();
            active.add(new Info(info.getSimSlotIndex(), carrier == null ? null : carrier.toString(),
                    numberOf(subscriptions, info), info.getSubscriptionId()));
        }
        return active;
    }

    @Override
    public int defaultSmsSubscriptionId() {
        return SmsManager.getDefaultSmsSubscriptionId();
    }

    /** The SIM's number when the phone knows it and lets the app read it; null otherwise, never an error. */
    private String numberOf(SubscriptionManager subscriptions, SubscriptionInfo info) {
        try {
            if (Build.VERSION.SDK_INT >= 33) {
                if (context.checkSelfPermission(READ_PHONE_NUMBERS) != PackageManager.PERMISSION_GRANTED) return null;
                // SubscriptionManager.getPhoneNumber(int), API 33: getNumber is deprecated there.
                Object number = SubscriptionManager.class.getMethod("getPhoneNumber", int.class)
                        .invoke(subscriptions, info.getSubscriptionId());
                return number instanceof String ? (String) number : null;
            }
            return info.getNumber();
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }
}
