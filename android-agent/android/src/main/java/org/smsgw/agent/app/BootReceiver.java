package org.smsgw.agent.app;

import android.content.BroadcastReceiver;
import android.content.Context;
import android.content.Intent;

/** Starts the agent after a reboot or an update of the app, when a paired phone was running it. */
public final class BootReceiver extends BroadcastReceiver {
    @Override
    public void onReceive(Context context, Intent intent) {
        String action = intent.getAction();
        if (!Intent.ACTION_BOOT_COMPLETED.equals(action) && !Intent.ACTION_MY_PACKAGE_REPLACED.equals(action)) return;
        AgentRuntime runtime = AgentRuntime.get(context);
        if (runtime.credentials.credentials() != null && !runtime.credentials.stoppedByUser()) {
            AgentService.start(context);
        }
    }
}
