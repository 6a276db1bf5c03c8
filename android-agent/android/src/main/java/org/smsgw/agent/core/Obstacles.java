package org.smsgw.agent.core;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * What stands between the app and a phone that sends for hours on end (issue 38), decided from
 * what the edge reads of Android: each obstacle that applies, with the step the screen shows the
 * owner, in the order to take them. Also the risks telemetry reports.
 */
public final class Obstacles {
    /** What the app's edge reads of Android. */
    public static final class PhoneState {
        public final int sdkInt;
        /** Installed from elsewhere than an app store (the installer is a browser, a file manager or adb). */
        public final boolean sideloaded;
        public final boolean smsGranted;
        /** The app asked for SEND_SMS and Android refused without a dialog (restricted settings, Android 13+ for sideloaded apps). */
        public final boolean smsDeniedWithoutDialog;
        public final boolean ignoringBatteryOptimizations;
        /** The boot receiver is enabled and the app was opened once since install (Android starts no receiver before). */
        public final boolean bootStartEnabled;

        public PhoneState(int sdkInt, boolean sideloaded, boolean smsGranted, boolean smsDeniedWithoutDialog,
                boolean ignoringBatteryOptimizations, boolean bootStartEnabled) {
            this.sdkInt = sdkInt;
            this.sideloaded = sideloaded;
            this.smsGranted = smsGranted;
            this.smsDeniedWithoutDialog = smsDeniedWithoutDialog;
            this.ignoringBatteryOptimizations = ignoringBatteryOptimizations;
            this.bootStartEnabled = bootStartEnabled;
        }
    }

    /** One obstacle: its id (as telemetry's risks name it, where it is one), a title and the step to take. */
    public static final class Obstacle {
        public final String id;
        public final String title;
        public final String step;
        /** What the screen's button opens: restricted_settings (App info), battery_optimization, permissions. */
        public final String action;

        Obstacle(String id, String title, String step, String action) {
            this.id = id;
            this.title = title;
            this.step = step;
            this.action = action;
        }
    }

    /** Android 13 (API 33) brought restricted settings for sideloaded apps; Android 15 extended them to SMS. */
    static final int RESTRICTED_SETTINGS_SDK = 33;

    private Obstacles() {
    }

    /** The obstacles that apply, in the order to take them. */
    public static List<Obstacle> of(PhoneState p) {
        List<Obstacle> out = new ArrayList<Obstacle>();
        if (!p.smsGranted) {
            if (p.sideloaded && p.sdkInt >= RESTRICTED_SETTINGS_SDK && p.smsDeniedWithoutDialog) {
                out.add(new Obstacle("sms_restricted", "The SMS permission is restricted",
                        "Android hides it for apps installed outside a store. Open App info, tap the three dots at the top right, "
                                + "then \"Allow restricted settings\" and confirm with your PIN. Then come back and grant Send SMS.",
                        "restricted_settings"));
            } else {
                out.add(new Obstacle("sms_permission", "The app may not send SMS yet",
                        "Tap \"Grant the permissions\" and allow Send SMS and Receive SMS.", "permissions"));
            }
        }
        if (!p.ignoringBatteryOptimizations) {
            out.add(new Obstacle("battery_optimized", "Battery optimisation may stop the app",
                    "Tap \"Exempt from battery optimisation\" and choose Allow; then follow the advice for your phone's maker.",
                    "battery_optimization"));
        }
        if (!p.bootStartEnabled) {
            out.add(new Obstacle("no_boot_start", "The app does not start when the phone boots",
                    "Open the app once after installing it (Android starts nothing of an app never opened), and on Xiaomi, Huawei, "
                            + "Oppo or Vivo phones turn Autostart on in the app's settings.",
                    "app_info"));
        }
        return Collections.unmodifiableList(out);
    }

    /** The risks telemetry reports: the obstacles that may stop the app (protocol 6's names). */
    public static List<String> risks(PhoneState p) {
        List<String> risks = new ArrayList<String>();
        for (Obstacle o : of(p)) {
            if (o.id.equals("sms_restricted") || o.id.equals("battery_optimized") || o.id.equals("no_boot_start")) risks.add(o.id);
        }
        return risks;
    }
}
