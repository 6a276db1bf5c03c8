package org.smsgw.agent.app;

import android.content.ComponentName;
import android.content.Context;
import android.content.Intent;
import android.content.IntentFilter;
import android.content.SharedPreferences;
import android.content.pm.PackageManager;
import android.os.BatteryManager;
import android.os.Build;
import android.os.Environment;
import android.os.PowerManager;
import android.os.StatFs;
import java.util.List;
import org.smsgw.agent.core.Obstacles;
import org.smsgw.agent.core.PhoneLink;
import org.smsgw.agent.core.PhoneSims;
import org.smsgw.agent.core.SimSignals;
import org.smsgw.agent.core.Telemetry;

/**
 * The edge of protocol 6 and of the obstacles: what Android says of the battery, each SIM's signal, the
 * storage, the permissions, battery optimisation and the boot receiver, read into the core's
 * values (the rules are in core/Telemetry and core/Obstacles). Compiled against API 23: newer calls
 * go through reflection and are left out where they are missing.
 */
final class AndroidPhoneState implements Telemetry.Source, PhoneLink.SettingsStore {
    private static final String PREFS = "smsgw-phone";
    /** Set when Android refused SEND_SMS without showing its dialog (restricted settings). */
    static final String SMS_DENIED_SILENTLY = "sms_denied_silently";

    private final Context context;
    private final String appVersion;
    /** Every active SIM's signal (the core maps subscriptions to slots; AndroidRadio reads each). */
    private final SimSignals signals;

    AndroidPhoneState(Context context, String appVersion) {
        this.context = context.getApplicationContext();
        this.appVersion = appVersion;
        this.signals = new SimSignals(new PhoneSims(new AndroidSubscriptions(this.context), AndroidLog.INSTANCE), new AndroidRadio(this.context));
    }

    static SharedPreferences prefs(Context context) {
        return context.getApplicationContext().getSharedPreferences(PREFS, Context.MODE_PRIVATE);
    }

    Obstacles.PhoneState phoneState() {
        String installer = null;
        try {
            installer = context.getPackageManager().getInstallerPackageName(context.getPackageName());
        } catch (IllegalArgumentException e) {
            // Unknown package: treated as sideloaded.
        }
        boolean sideloaded = installer == null || !installer.equals("com.android.vending");
        boolean smsGranted = context.checkSelfPermission(android.Manifest.permission.SEND_SMS) == PackageManager.PERMISSION_GRANTED;
        PowerManager power = (PowerManager) context.getSystemService(Context.POWER_SERVICE);
        boolean exempt = power != null && power.isIgnoringBatteryOptimizations(context.getPackageName());
        int boot = context.getPackageManager().getComponentEnabledSetting(new ComponentName(context, BootReceiver.class));
        boolean bootStart = boot != PackageManager.COMPONENT_ENABLED_STATE_DISABLED;
        return new Obstacles.PhoneState(Build.VERSION.SDK_INT, sideloaded, smsGranted, prefs(context).getBoolean(SMS_DENIED_SILENTLY, false),
                exempt, bootStart);
    }

    @Override
    public Telemetry read() {
        Intent battery = context.registerReceiver(null, new IntentFilter(Intent.ACTION_BATTERY_CHANGED));
        int level = -1;
        boolean charging = false;
        if (battery != null) {
            int raw = battery.getIntExtra(BatteryManager.EXTRA_LEVEL, -1);
            int scale = battery.getIntExtra(BatteryManager.EXTRA_SCALE, 100);
            if (raw >= 0 && scale > 0) level = Math.round(raw * 100f / scale);
            charging = battery.getIntExtra(BatteryManager.EXTRA_PLUGGED, 0) != 0;
        }
        List<Telemetry.SimSignal> sims = signals.read();
        long freeMb = -1;
        try {
            freeMb = new StatFs(Environment.getDataDirectory().getPath()).getAvailableBytes() / (1024 * 1024);
        } catch (IllegalArgumentException e) {
            // Unknown.
        }
        return new Telemetry(level, charging, sims, freeMb, appVersion, Build.VERSION.RELEASE + " (API " + Build.VERSION.SDK_INT + ")",
                Obstacles.risks(phoneState()));
    }

    @Override
    public void save(String settingsJson) {
        prefs(context).edit().putString("settings", settingsJson).apply();
    }
}
