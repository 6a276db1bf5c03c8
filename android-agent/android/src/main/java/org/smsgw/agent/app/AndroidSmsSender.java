package org.smsgw.agent.app;

import android.Manifest;
import android.app.PendingIntent;
import android.content.Context;
import android.content.Intent;
import android.content.pm.PackageManager;
import android.net.Uri;
import android.os.Build;
import android.os.PowerManager;
import android.telephony.SmsManager;
import android.telephony.SubscriptionInfo;
import android.telephony.SubscriptionManager;
import java.util.ArrayList;
import java.util.List;
import org.smsgw.agent.core.Sim;
import org.smsgw.agent.core.SmsError;
import org.smsgw.agent.core.SmsSender;

/**
 * Sends through SmsManager: the text divided into parts, each part with a sent and a delivery
 * PendingIntent aimed at {@link SmsResultReceiver}. Android fills those intents in (the result
 * code, the errorCode extra, the delivery report's pdu and format), so they must be mutable from
 * API 31, which in turn requires them to be explicit.
 *
 * <p>Protocol 4: the SIMs come from SubscriptionManager (READ_PHONE_STATE; without it they are
 * unknown), a SIM's number from getPhoneNumber with READ_PHONE_NUMBERS on API 33+ or from
 * SubscriptionInfo.getNumber before; an SMS for a SIM goes through that SIM's subscription.
 */
final class AndroidSmsSender implements SmsSender {
    static final String ACTION_SENT = "org.smsgw.agent.SMS_SENT";
    static final String ACTION_DELIVERED = "org.smsgw.agent.SMS_DELIVERED";
    static final String EXTRA_DEVICE = "device_id";
    static final String EXTRA_MESSAGE = "message_id";
    static final String EXTRA_PART = "part";
    // PendingIntent.FLAG_MUTABLE, API 31.
    private static final int FLAG_MUTABLE = 0x02000000;
    // Manifest.permission.READ_PHONE_NUMBERS, API 26.
    static final String READ_PHONE_NUMBERS = "android.permission.READ_PHONE_NUMBERS";
    // SubscriptionManager.INVALID_SUBSCRIPTION_ID.
    private static final int INVALID_SUBSCRIPTION_ID = -1;

    private final Context context;
    private final String deviceId;

    AndroidSmsSender(Context context, String deviceId) {
        this.context = context;
        this.deviceId = deviceId;
    }

    @Override
    public List<String> divide(String text) {
        return SmsManager.getDefault().divideMessage(text);
    }

    @Override
    public List<Sim> sims() {
        if (context.checkSelfPermission(Manifest.permission.READ_PHONE_STATE) != PackageManager.PERMISSION_GRANTED) return null;
        try {
            SubscriptionManager subscriptions = SubscriptionManager.from(context);
            List<SubscriptionInfo> infos = subscriptions.getActiveSubscriptionInfoList();
            List<Sim> sims = new ArrayList<Sim>();
            if (infos == null) return sims; // no SIM
            for (SubscriptionInfo info : infos) {
                if (info.getSimSlotIndex() < 0) continue; // an eSIM profile not in a slot
                CharSequence carrier = info.getCarrierName();
                sims.add(new Sim(info.getSimSlotIndex() + 1, carrier == null ? null : carrier.toString(),
                        numberOf(subscriptions, info), info.getSubscriptionId()));
            }
            return sims;
        } catch (RuntimeException e) {
            AndroidLog.INSTANCE.warn("could not list the SIMs", e);
            return null;
        }
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

    @Override
    public int defaultSlot() {
        List<Sim> sims = sims();
        if (sims == null) return 0;
        int subscriptionId = SmsManager.getDefaultSmsSubscriptionId();
        for (Sim sim : sims) {
            if (sim.subscriptionId == subscriptionId && subscriptionId != INVALID_SUBSCRIPTION_ID) return sim.slot;
        }
        // No default set: a phone with one SIM sends through it.
        return sims.size() == 1 ? sims.get(0).slot : 0;
    }

    @Override
    public void send(String messageId, String to, List<String> parts, Sim sim) throws Refused {
        PowerManager power = (PowerManager) context.getSystemService(Context.POWER_SERVICE);
        PowerManager.WakeLock wake = power.newWakeLock(PowerManager.PARTIAL_WAKE_LOCK, "smsgw:send");
        // Long enough for the telephony service to take every part, short enough to never drain.
        wake.acquire(10000);
        try {
            ArrayList<PendingIntent> sent = new ArrayList<PendingIntent>();
            ArrayList<PendingIntent> delivered = new ArrayList<PendingIntent>();
            for (int part = 0; part < parts.size(); part++) {
                sent.add(callback(ACTION_SENT, messageId, part));
                delivered.add(callback(ACTION_DELIVERED, messageId, part));
            }
            SmsManager manager = sim == null ? SmsManager.getDefault() : SmsManager.getSmsManagerForSubscriptionId(sim.subscriptionId);
            manager.sendMultipartTextMessage(to, null, new ArrayList<String>(parts), sent, delivered);
        } catch (IllegalArgumentException e) {
            throw new Refused(new SmsError(SmsError.INVALID_NUMBER, "Android refused the recipient or the text"));
        } finally {
            if (wake.isHeld()) wake.release();
        }
    }

    private PendingIntent callback(String action, String messageId, int part) {
        Intent intent = new Intent(action, Uri.fromParts("smsgw", deviceId + "/" + messageId + "/" + part, null))
                .setClass(context, SmsResultReceiver.class)
                .putExtra(EXTRA_DEVICE, deviceId)
                .putExtra(EXTRA_MESSAGE, messageId)
                .putExtra(EXTRA_PART, part);
        // The data URI makes each part's intent distinct, so none replaces another's extras.
        int flags = Build.VERSION.SDK_INT >= 31 ? FLAG_MUTABLE : 0;
        return PendingIntent.getBroadcast(context, 0, intent, flags);
    }
}
