package org.smsgw.agent.app;

import android.app.Notification;
import android.app.NotificationManager;
import android.app.PendingIntent;
import android.content.Context;
import android.content.Intent;
import android.os.Build;
import java.text.DateFormat;
import java.util.Date;
import org.smsgw.agent.R;
import org.smsgw.agent.core.Agent;
import org.smsgw.agent.core.HubClient;

/**
 * The persistent notification of the foreground service: the connection's state in the title,
 * the queue, the last SMS and the last error below. Channels (API 26) go through reflection:
 * only API 23 classes compile here.
 */
final class StatusNotification {
    static final int ID = 1;
    private static final String CHANNEL = "agent";
    // NotificationManager.IMPORTANCE_LOW: shown without sound.
    private static final int IMPORTANCE_LOW = 2;

    private StatusNotification() {
    }

    static void createChannel(Context context) {
        if (Build.VERSION.SDK_INT < 26) return;
        try {
            Class<?> channelClass = Class.forName("android.app.NotificationChannel");
            Object channel = channelClass.getConstructor(String.class, CharSequence.class, int.class)
                    .newInstance(CHANNEL, context.getString(R.string.channel_name), IMPORTANCE_LOW);
            channelClass.getMethod("setDescription", String.class).invoke(channel, context.getString(R.string.channel_description));
            NotificationManager.class.getMethod("createNotificationChannel", channelClass)
                    .invoke(context.getSystemService(Context.NOTIFICATION_SERVICE), channel);
        } catch (ReflectiveOperationException e) {
            AndroidLog.INSTANCE.warn("could not create the notification channel", e);
        }
    }

    /** The title for a state: what the owner reads first. */
    static String title(HubClient.State state) {
        switch (state) {
            case CONNECTED:
                return "Connected: ready to send";
            case CONNECTING:
                return "Connecting to the gateway…";
            case WAITING:
                return "Not connected: retrying";
            default:
                return "Stopped";
        }
    }

    static Notification build(Context context, String title, String text) {
        Notification.Builder builder;
        if (Build.VERSION.SDK_INT >= 26) {
            try {
                builder = (Notification.Builder) Notification.Builder.class.getConstructor(Context.class, String.class)
                        .newInstance(context, CHANNEL);
            } catch (ReflectiveOperationException e) {
                builder = new Notification.Builder(context);
            }
        } else {
            builder = new Notification.Builder(context);
        }
        Intent open = new Intent(context, MainActivity.class).setFlags(Intent.FLAG_ACTIVITY_SINGLE_TOP);
        PendingIntent content = PendingIntent.getActivity(context, 0, open, PendingIntent.FLAG_IMMUTABLE);
        return builder
                .setSmallIcon(R.drawable.ic_notification)
                .setContentTitle(title)
                .setContentText(text)
                .setStyle(new Notification.BigTextStyle().bigText(text))
                .setContentIntent(content)
                .setOngoing(true)
                .setOnlyAlertOnce(true)
                .setShowWhen(false)
                .setCategory(Notification.CATEGORY_SERVICE)
                .build();
    }

    /** The lines under the title. */
    static String text(Agent.Status status, String waitingDetail) {
        StringBuilder b = new StringBuilder();
        b.append("Queue: ").append(status.queued).append(status.queued == 1 ? " SMS" : " SMS");
        if (status.lastSmsId != null) {
            b.append("\nLast SMS: ").append(status.lastSmsStatus).append(" at ").append(time(status.lastSmsAt));
        }
        if (status.lastError != null) {
            b.append("\nLast error (").append(time(status.lastErrorAt)).append("): ").append(status.lastError);
        }
        return b.toString();
    }

    private static String time(long at) {
        return DateFormat.getTimeInstance(DateFormat.SHORT).format(new Date(at));
    }
}
