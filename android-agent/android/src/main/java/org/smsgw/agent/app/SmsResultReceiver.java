package org.smsgw.agent.app;

import android.content.BroadcastReceiver;
import android.content.Context;
import android.content.Intent;
import android.telephony.SmsMessage;
import org.smsgw.agent.core.Outbox;
import org.smsgw.agent.core.SmsResults;

/**
 * Android's sent and delivery reports of each part. They come even when the process had died
 * since the hand-over (Android starts it again for them), and are written to the outbox before
 * this returns; the service sends the resulting reports to the hub.
 */
public final class SmsResultReceiver extends BroadcastReceiver {
    @Override
    public void onReceive(Context context, Intent intent) {
        String deviceId = intent.getStringExtra(AndroidSmsSender.EXTRA_DEVICE);
        String messageId = intent.getStringExtra(AndroidSmsSender.EXTRA_MESSAGE);
        int part = intent.getIntExtra(AndroidSmsSender.EXTRA_PART, -1);
        if (deviceId == null || messageId == null || part < 0) return;
        Outbox outbox = AgentRuntime.get(context).outbox(deviceId);
        if (AndroidSmsSender.ACTION_SENT.equals(intent.getAction())) {
            SmsResults.sent(outbox, messageId, part, getResultCode(), intent.getIntExtra("errorCode", -1));
        } else if (AndroidSmsSender.ACTION_DELIVERED.equals(intent.getAction())) {
            byte[] pdu = intent.getByteArrayExtra("pdu");
            String format = intent.getStringExtra("format");
            SmsResults.delivered(outbox, messageId, part, format, pdu, frameworkStatus(pdu, format));
        }
    }

    /** Android's own reading of the report (the only one for CDMA), -1 when it cannot. */
    private static int frameworkStatus(byte[] pdu, String format) {
        if (pdu == null) return -1;
        try {
            SmsMessage message = format != null ? SmsMessage.createFromPdu(pdu, format) : SmsMessage.createFromPdu(pdu);
            return message == null ? -1 : message.getStatus();
        } catch (RuntimeException e) {
            return -1;
        }
    }
}
