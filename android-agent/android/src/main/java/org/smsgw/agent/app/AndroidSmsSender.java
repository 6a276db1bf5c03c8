package org.smsgw.agent.app;

import android.app.PendingIntent;
import android.content.Context;
import android.content.Intent;
import android.net.Uri;
import android.os.Build;
import android.os.PowerManager;
import android.telephony.SmsManager;
import java.util.ArrayList;
import java.util.List;
import org.smsgw.agent.core.PhoneSims;
import org.smsgw.agent.core.Sim;
import org.smsgw.agent.core.SmsError;
import org.smsgw.agent.core.SmsSender;

/**
 * Sends through SmsManager: the text divided into parts, each part with a sent and a delivery
 * PendingIntent aimed at {@link SmsResultReceiver}. Android fills those intents in (the result
 * code, the errorCode extra, the delivery report's pdu and format), so they must be mutable from
 * API 31, which in turn requires them to be explicit.
 *
 * <p>Protocol 4: the SIMs, each with its subscription, and the default slot are {@link PhoneSims}'
 * (over SubscriptionManager: {@link AndroidSubscriptions}); an SMS for a SIM goes through the
 * SmsManager of that SIM's subscription, one that names none through the default SmsManager.
 */
final class AndroidSmsSender implements SmsSender {
    static final String ACTION_SENT = "org.smsgw.agent.SMS_SENT";
    static final String ACTION_DELIVERED = "org.smsgw.agent.SMS_DELIVERED";
    static final String EXTRA_DEVICE = "device_id";
    static final String EXTRA_MESSAGE = "message_id";
    static final String EXTRA_PART = "part";
    // PendingIntent.FLAG_MUTABLE, API 31.
    private static final int FLAG_MUTABLE = 0x02000000;

    private final Context context;
    private final String deviceId;
    private final PhoneSims sims;

    AndroidSmsSender(Context context, String deviceId) {
        this.context = context;
        this.deviceId = deviceId;
        this.sims = new PhoneSims(new AndroidSubscriptions(context), AndroidLog.INSTANCE);
    }

    @Override
    public List<String> divide(String text) {
        return SmsManager.getDefault().divideMessage(text);
    }

    @Override
    public List<Sim> sims() {
        return sims.sims();
    }

    @Override
    public int defaultSlot() {
        return sims.defaultSlot();
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
