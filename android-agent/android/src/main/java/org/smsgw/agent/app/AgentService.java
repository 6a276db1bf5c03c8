package org.smsgw.agent.app;

import android.app.Notification;
import android.app.NotificationManager;
import android.app.Service;
import android.content.Context;
import android.content.Intent;
import android.net.ConnectivityManager;
import android.net.Network;
import android.net.NetworkCapabilities;
import android.net.NetworkRequest;
import android.os.Build;
import android.os.Handler;
import android.os.IBinder;
import android.os.Looper;
import android.os.SystemClock;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import org.smsgw.agent.core.Agent;
import org.smsgw.agent.core.Clock;
import org.smsgw.agent.core.Credentials;
import org.smsgw.agent.core.ExecutorEventLoop;
import org.smsgw.agent.core.HubClient;
import org.smsgw.agent.core.PhoneLink;
import org.smsgw.agent.core.Tls;
import org.smsgw.agent.core.WebSocketTransport;

/**
 * The foreground service that holds the connection: it runs the core's Agent for the paired
 * device, shows its state in the persistent notification, and tells it of network changes.
 */
public final class AgentService extends Service {
    static final String ACTION_STOP = "org.smsgw.agent.STOP";
    // ServiceInfo.FOREGROUND_SERVICE_TYPE_DATA_SYNC, API 29.
    private static final int FOREGROUND_SERVICE_TYPE_DATA_SYNC = 1;
    private static final long NOTIFY_EVERY_MS = 1000;

    /** The last status, for the activity's screen. */
    static volatile Agent.Status lastStatus;
    /** The running agent, told when the owner changes the passphrase; null when stopped. */
    private static volatile Agent running;

    private final Handler main = new Handler(Looper.getMainLooper());
    private ExecutorEventLoop loop;
    private Agent agent;
    private ConnectivityManager.NetworkCallback networkCallback;
    private long lastNotifiedAt;
    private boolean notifyPending;

    /** Starts the service in the foreground (startForegroundService from API 26, by reflection). */
    static void start(Context context) {
        Intent intent = new Intent(context, AgentService.class);
        if (Build.VERSION.SDK_INT >= 26) {
            try {
                Context.class.getMethod("startForegroundService", Intent.class).invoke(context, intent);
                return;
            } catch (ReflectiveOperationException e) {
                AndroidLog.INSTANCE.warn("startForegroundService failed", e);
            }
        }
        context.startService(intent);
    }

    /** The owner saved or cleared the passphrase (null): the running agent uses it from the next SMS on. */
    static void passphraseChanged(String passphrase) {
        Agent a = running;
        if (a != null) a.setPassphrase(passphrase);
    }

    static void stop(Context context) {
        context.startService(new Intent(context, AgentService.class).setAction(ACTION_STOP));
    }

    @Override
    public void onCreate() {
        super.onCreate();
        StatusNotification.createChannel(this);
        // Within five seconds of startForegroundService, whatever comes next.
        goForeground(StatusNotification.build(this, "Starting…", ""));
    }

    @Override
    public int onStartCommand(Intent intent, int flags, int startId) {
        if (intent != null && ACTION_STOP.equals(intent.getAction())) {
            shutdown();
            stopSelf();
            return START_NOT_STICKY;
        }
        AgentRuntime runtime = AgentRuntime.get(this);
        Credentials credentials = runtime.credentials.credentials();
        if (credentials == null) {
            shutdown();
            stopSelf();
            return START_NOT_STICKY;
        }
        if (agent == null) startAgent(runtime, credentials);
        // Started again by Android after it killed the process: it comes back with the outbox.
        return START_STICKY;
    }

    private void startAgent(AgentRuntime runtime, Credentials credentials) {
        Tls tls;
        try {
            tls = Tls.create(runtime.credentials.caPem());
        } catch (GeneralSecurityException e) {
            show("Stopped: the CA certificate cannot be used", e.getMessage());
            return;
        }
        String version = "0.0.0";
        try {
            version = getPackageManager().getPackageInfo(getPackageName(), 0).versionName;
        } catch (Exception e) {
            AndroidLog.INSTANCE.warn("no package info", e);
        }
        loop = new ExecutorEventLoop("smsgw-agent", AndroidLog.INSTANCE);
        agent = new Agent(credentials, runtime.outbox(credentials.deviceId), runtime.inbox(credentials.deviceId),
                new AndroidSmsSender(this, credentials.deviceId),
                new WebSocketTransport(tls, "smsgw-agent-android/" + version, 20000), loop, Clock.SYSTEM, new SecureRandom(),
                runtime.log, new Agent.Listener() {
                    @Override
                    public void onStatus(Agent.Status status) {
                        lastStatus = status;
                        scheduleNotify();
                    }

                    @Override
                    public void onFatal(final HubClient.Fatal fatal, final String message) {
                        main.post(new Runnable() {
                            @Override
                            public void run() {
                                stopByItself(fatal, message);
                            }
                        });
                    }
                }, HubClient.REPORT_RESEND_MS);
        AndroidPhoneState phone = new AndroidPhoneState(this, version);
        agent.usePhone(new PhoneLink(phone, runtime.ring, phone, loop, Clock.SYSTEM, runtime.log));
        agent.setPassphrase(runtime.passphrase.passphrase());
        running = agent;
        agent.start();
        watchNetwork();
    }

    /** Token refused or device replaced: the owner must act; the notification says what. */
    private void stopByItself(HubClient.Fatal fatal, String message) {
        AgentRuntime runtime = AgentRuntime.get(this);
        runtime.credentials.saveStoppedReason(message);
        if (fatal == HubClient.Fatal.UNAUTHORIZED) runtime.credentials.forget();
        shutdown();
        NotificationManager nm = (NotificationManager) getSystemService(Context.NOTIFICATION_SERVICE);
        String title = fatal == HubClient.Fatal.UNAUTHORIZED ? "Stopped: pair this phone again" : "Stopped: another phone took over";
        stopForeground(true);
        // A plain notification now, which the owner can dismiss.
        nm.notify(StatusNotification.ID + 1, StatusNotification.build(this, title, message));
        stopSelf();
    }

    private void watchNetwork() {
        final ConnectivityManager cm = (ConnectivityManager) getSystemService(Context.CONNECTIVITY_SERVICE);
        networkCallback = new ConnectivityManager.NetworkCallback() {
            @Override
            public void onAvailable(Network network) {
                Agent a = agent;
                if (a != null) a.networkChanged();
            }

            @Override
            public void onLost(Network network) {
                Agent a = agent;
                if (a != null) a.networkChanged();
            }
        };
        cm.registerNetworkCallback(new NetworkRequest.Builder().addCapability(NetworkCapabilities.NET_CAPABILITY_INTERNET).build(),
                networkCallback);
    }

    private void scheduleNotify() {
        main.post(new Runnable() {
            @Override
            public void run() {
                if (notifyPending) return;
                long wait = Math.max(0, lastNotifiedAt + NOTIFY_EVERY_MS - SystemClock.elapsedRealtime());
                notifyPending = true;
                main.postDelayed(new Runnable() {
                    @Override
                    public void run() {
                        notifyPending = false;
                        lastNotifiedAt = SystemClock.elapsedRealtime();
                        Agent.Status s = lastStatus;
                        if (s != null && agent != null) show(StatusNotification.title(s.state), StatusNotification.text(s, null));
                    }
                }, wait);
            }
        });
    }

    private void show(String title, String text) {
        NotificationManager nm = (NotificationManager) getSystemService(Context.NOTIFICATION_SERVICE);
        nm.notify(StatusNotification.ID, StatusNotification.build(this, title, text));
    }

    private void goForeground(Notification notification) {
        if (Build.VERSION.SDK_INT >= 29) {
            try {
                Service.class.getMethod("startForeground", int.class, Notification.class, int.class)
                        .invoke(this, StatusNotification.ID, notification, FOREGROUND_SERVICE_TYPE_DATA_SYNC);
                return;
            } catch (ReflectiveOperationException e) {
                AndroidLog.INSTANCE.warn("typed startForeground failed", e);
            }
        }
        startForeground(StatusNotification.ID, notification);
    }

    private void shutdown() {
        if (networkCallback != null) {
            ((ConnectivityManager) getSystemService(Context.CONNECTIVITY_SERVICE)).unregisterNetworkCallback(networkCallback);
            networkCallback = null;
        }
        if (agent != null) {
            agent.stop();
            agent = null;
        }
        running = null;
        if (loop != null) {
            loop.shutdown();
            loop = null;
        }
        lastStatus = null;
    }

    @Override
    public void onDestroy() {
        shutdown();
        super.onDestroy();
    }

    @Override
    public IBinder onBind(Intent intent) {
        return null;
    }
}
