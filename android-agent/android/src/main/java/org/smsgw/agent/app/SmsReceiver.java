package org.smsgw.agent.app;

import android.content.BroadcastReceiver;
import android.content.Context;
import android.content.Intent;
import android.os.Bundle;
import android.provider.Telephony;
import android.telephony.SmsMessage;
import java.util.ArrayList;
import java.util.List;
import org.smsgw.agent.core.Credentials;
import org.smsgw.agent.core.Inbox;
import org.smsgw.agent.core.PhoneSims;
import org.smsgw.agent.core.ReceivedSim;
import org.smsgw.agent.core.SmsParts;

/**
 * {@code SMS_RECEIVED} (protocol 3): the parts of each SMS put back together (SmsParts), written
 * to the paired device's inbox before the broadcast ends (goAsync, a worker thread, since the
 * write waits for the disk), then sent to the hub by the running service, or after its next
 * hello. The SIM it came in on is {@link ReceivedSim}'s reading of the intent's extras. With a
 * passphrase (protocol 8) the inbox seals the text before it writes it. The default
 * SMS app still gets the SMS too: this app only reads the broadcast.
 */
public final class SmsReceiver extends BroadcastReceiver {
    @Override
    public void onReceive(final Context context, final Intent intent) {
        if (!Telephony.Sms.Intents.SMS_RECEIVED_ACTION.equals(intent.getAction())) return;
        final PendingResult pending = goAsync();
        new Thread(new Runnable() {
            @Override
            public void run() {
                try {
                    store(context, intent);
                } catch (RuntimeException e) {
                    AndroidLog.INSTANCE.warn("could not write a received SMS to the inbox", e);
                } finally {
                    pending.finish();
                }
            }
        }, "smsgw-sms-received").start();
    }

    private static void store(Context context, Intent intent) {
        AgentRuntime runtime = AgentRuntime.get(context);
        Credentials credentials = runtime.credentials.credentials();
        if (credentials == null) {
            // Not paired: there is no hub to give it to.
            AndroidLog.INSTANCE.info("SMS received while not paired: not kept");
            return;
        }
        SmsMessage[] messages = Telephony.Sms.Intents.getMessagesFromIntent(intent);
        if (messages == null) return;
        List<SmsParts.Part> parts = new ArrayList<SmsParts.Part>();
        for (SmsMessage m : messages) {
            if (m == null) continue;
            parts.add(new SmsParts.Part(m.getDisplayOriginatingAddress(), m.getDisplayMessageBody(), m.getTimestampMillis()));
        }
        Inbox inbox = runtime.inbox(credentials.deviceId);
        int sim = ReceivedSim.slotOf(extras(intent.getExtras()),
                new PhoneSims(new AndroidSubscriptions(context), AndroidLog.INSTANCE));
        long now = System.currentTimeMillis();
        // Protocol 8: with the owner's passphrase, the inbox keeps and sends the text sealed.
        String passphrase = runtime.passphrase.passphrase();
        for (SmsParts.Message message : SmsParts.reassemble(parts)) {
            // received_at is the phone's time of arrival: the service centre's stamp is the sender's
            // network's clock, sometimes off by hours.
            inbox.receive(message.from, message.text, sim, now, passphrase);
        }
    }

    private static ReceivedSim.Extras extras(final Bundle bundle) {
        if (bundle == null) return null;
        return new ReceivedSim.Extras() {
            @Override
            public Object get(String name) {
                return bundle.get(name);
            }
        };
    }
}
