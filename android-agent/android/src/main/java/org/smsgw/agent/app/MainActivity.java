package org.smsgw.agent.app;

import android.app.Activity;
import android.app.AlertDialog;
import android.content.DialogInterface;
import android.content.Intent;
import android.content.pm.PackageManager;
import android.net.Uri;
import android.os.Build;
import android.os.Bundle;
import android.os.Handler;
import android.os.Looper;
import android.os.PowerManager;
import android.provider.Settings;
import android.text.InputType;
import android.view.View;
import android.widget.Button;
import android.widget.EditText;
import android.widget.LinearLayout;
import android.widget.ScrollView;
import android.widget.TextView;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import org.smsgw.agent.core.Agent;
import org.smsgw.agent.core.Credentials;
import org.smsgw.agent.core.Obstacles;
import org.smsgw.agent.core.Outbox;
import org.smsgw.agent.core.Pairing;
import org.smsgw.agent.core.PairingException;
import org.smsgw.agent.core.Tls;

/**
 * The one screen: pair (scan the dashboard's QR code, or type the hub, client id and device
 * password), trust a CA for a self-hosted hub, grant what the agent needs, start, stop, unpair,
 * and open the end-to-end passphrase screen.
 */
public final class MainActivity extends Activity {
    private static final int SCAN = 1;
    private static final int PICK_CA = 2;
    private static final int PERMISSIONS = 3;
    // Manifest.permission.POST_NOTIFICATIONS, API 33.
    private static final String POST_NOTIFICATIONS = "android.permission.POST_NOTIFICATIONS";

    private final Handler main = new Handler(Looper.getMainLooper());
    private AgentRuntime runtime;
    private LinearLayout column;
    private TextView status;
    private boolean pairing;
    private final Runnable refresh = new Runnable() {
        @Override
        public void run() {
            showStatus();
            main.postDelayed(this, 1000);
        }
    };

    @Override
    protected void onCreate(Bundle state) {
        super.onCreate(state);
        runtime = AgentRuntime.get(this);
        ScrollView scroll = new ScrollView(this);
        column = new LinearLayout(this);
        column.setOrientation(LinearLayout.VERTICAL);
        int pad = dp(16);
        column.setPadding(pad, pad, pad, pad);
        scroll.addView(column);
        setContentView(scroll);
    }

    @Override
    protected void onResume() {
        super.onResume();
        build();
        main.post(refresh);
    }

    @Override
    protected void onPause() {
        main.removeCallbacks(refresh);
        super.onPause();
    }

    /** Draws the screen for the current state: paired or not. */
    private void build() {
        column.removeAllViews();
        status = text("");
        Credentials c = runtime.credentials.credentials();
        String stopped = runtime.credentials.stoppedReason();
        if (stopped != null) column.addView(text("Stopped by itself: " + stopped));
        if (c == null) {
            heading("Pair this phone");
            column.addView(text("On the dashboard, open Phones and add a phone. Then scan its QR code here, "
                    + "or type the hub's address, your client id and the device password."));
            button("Scan the QR code", new View.OnClickListener() {
                @Override
                public void onClick(View v) {
                    startActivityForResult(new Intent(MainActivity.this, ScanActivity.class), SCAN);
                }
            });
            final EditText url = field("…or paste the pairing URL (https://…/v1/agent/pair?code=…)", InputType.TYPE_TEXT_VARIATION_URI);
            button("Pair with the URL", new View.OnClickListener() {
                @Override
                public void onClick(View v) {
                    pairWithUrl(url.getText().toString());
                }
            });
            final EditText hub = field("Hub address, e.g. hub.example.com:8444", InputType.TYPE_TEXT_VARIATION_URI);
            final EditText client = field("Client id (client_…)", InputType.TYPE_CLASS_TEXT);
            final EditText password = field("Device password (XXXX-XXXX-XXXX-XXXX)", InputType.TYPE_TEXT_FLAG_CAP_CHARACTERS);
            button("Pair with the password", new View.OnClickListener() {
                @Override
                public void onClick(View v) {
                    try {
                        pair(Pairing.withPassword(hub.getText().toString(), client.getText().toString(), password.getText().toString()));
                    } catch (PairingException e) {
                        say(e.getMessage());
                    }
                }
            });
            heading("Self-hosted hub");
            column.addView(text(runtime.credentials.caPem() == null
                    ? "The hub's certificate must be signed by a CA this phone trusts. For a hub with its own CA, choose its certificate (PEM) first."
                    : "An extra CA certificate is trusted for the hub."));
            button("Choose a CA certificate file", new View.OnClickListener() {
                @Override
                public void onClick(View v) {
                    Intent pick = new Intent(Intent.ACTION_OPEN_DOCUMENT).addCategory(Intent.CATEGORY_OPENABLE).setType("*/*");
                    startActivityForResult(pick, PICK_CA);
                }
            });
            if (runtime.credentials.caPem() != null) {
                button("Forget the CA certificate", new View.OnClickListener() {
                    @Override
                    public void onClick(View v) {
                        runtime.credentials.forgetCa();
                        build();
                    }
                });
            }
        } else {
            heading("Paired");
            column.addView(text("Device " + c.deviceId + "\nHub " + c.hubUrl));
            column.addView(status);
            button(runtime.credentials.stoppedByUser() ? "Start" : "Stop", new View.OnClickListener() {
                @Override
                public void onClick(View v) {
                    boolean stop = !runtime.credentials.stoppedByUser();
                    runtime.credentials.setStoppedByUser(stop);
                    if (stop) AgentService.stop(MainActivity.this); else AgentService.start(MainActivity.this);
                    build();
                }
            });
            button("Unpair", new View.OnClickListener() {
                @Override
                public void onClick(View v) {
                    confirmUnpair();
                }
            });
        }
        heading("End-to-end encryption");
        column.addView(text(runtime.passphrase.isSet() ? "A passphrase is set: encrypted texts are opened here, received SMS sealed."
                : "No passphrase: encrypted texts fail, received SMS go in clear."));
        button(runtime.passphrase.isSet() ? "Change or clear the passphrase" : "Set the passphrase", new View.OnClickListener() {
            @Override
            public void onClick(View v) {
                startActivity(new Intent(MainActivity.this, PassphraseActivity.class));
            }
        });
                heading("Keep it running");
        column.addView(text(missingPermissions().isEmpty() ? "SMS, phone and notification permissions: granted."
                : "Not yet granted: " + missingPermissions()));
        if (!missingPermissions().isEmpty()) {
            button("Grant the permissions", new View.OnClickListener() {
                @Override
                public void onClick(View v) {
                    requestPermissions(missingPermissions().toArray(new String[0]), PERMISSIONS);
                }
            });
        }
        PowerManager power = (PowerManager) getSystemService(POWER_SERVICE);
        boolean exempt = power.isIgnoringBatteryOptimizations(getPackageName());
        column.addView(text(exempt ? "Battery optimisation: this app is exempt."
                : "Battery optimisation: Android may suspend the connection. Exempt the app (and see the vendor advice in the docs)."));
        if (!exempt) {
            button("Exempt from battery optimisation", new View.OnClickListener() {
                @Override
                public void onClick(View v) {
                    startActivity(new Intent(Settings.ACTION_REQUEST_IGNORE_BATTERY_OPTIMIZATIONS,
                            Uri.parse("package:" + getPackageName())));
                }
            });
        }
        obstacles();
        showStatus();
    }

    /** What may still stop the app (core/Obstacles decides), each with its step and a button to its Android screen. */
    private void obstacles() {
        String version = "0.0.0";
        try {
            version = getPackageManager().getPackageInfo(getPackageName(), 0).versionName;
        } catch (PackageManager.NameNotFoundException e) {
            // The app's own package is always there.
        }
        List<Obstacles.Obstacle> found = Obstacles.of(new AndroidPhoneState(this, version).phoneState());
        if (found.isEmpty()) {
            column.addView(text("Nothing known stops the app: it may run for hours on end."));
            return;
        }
        heading("Still in the way");
        for (final Obstacles.Obstacle o : found) {
            column.addView(text(o.title + ". " + o.step));
            if (o.action.equals("restricted_settings") || o.action.equals("app_info")) {
                button("Open App info", new View.OnClickListener() {
                    @Override
                    public void onClick(View v) {
                        startActivity(new Intent(Settings.ACTION_APPLICATION_DETAILS_SETTINGS, Uri.parse("package:" + getPackageName())));
                    }
                });
            }
        }
    }

    private void showStatus() {
        if (status == null) return;
        Agent.Status s = AgentService.lastStatus;
        if (runtime.credentials.credentials() == null) return;
        if (s == null) {
            status.setText(runtime.credentials.stoppedByUser() ? "Stopped." : "Starting…");
        } else {
            status.setText(StatusNotification.title(s.state) + "\n" + StatusNotification.text(s, null));
        }
    }

    private List<String> missingPermissions() {
        List<String> missing = new ArrayList<String>();
        if (checkSelfPermission(android.Manifest.permission.SEND_SMS) != PackageManager.PERMISSION_GRANTED) {
            missing.add(android.Manifest.permission.SEND_SMS);
        }
        // Protocol 3: received SMS go to the hub. Asked with SEND_SMS (the same "SMS" group).
        if (checkSelfPermission(android.Manifest.permission.RECEIVE_SMS) != PackageManager.PERMISSION_GRANTED) {
            missing.add(android.Manifest.permission.RECEIVE_SMS);
        }
        // Protocol 4: the SIMs (slot, carrier) for the hub and sending through a chosen SIM; without it the SIMs are unknown.
        if (checkSelfPermission(android.Manifest.permission.READ_PHONE_STATE) != PackageManager.PERMISSION_GRANTED) {
            missing.add(android.Manifest.permission.READ_PHONE_STATE);
        }
        // Each SIM's number, from Android 13 (getPhoneNumber); optional, the SIMs are reported without it.
        if (Build.VERSION.SDK_INT >= 33 && checkSelfPermission(AndroidSubscriptions.READ_PHONE_NUMBERS) != PackageManager.PERMISSION_GRANTED) {
            missing.add(AndroidSubscriptions.READ_PHONE_NUMBERS);
        }
        if (Build.VERSION.SDK_INT >= 33 && checkSelfPermission(POST_NOTIFICATIONS) != PackageManager.PERMISSION_GRANTED) {
            missing.add(POST_NOTIFICATIONS);
        }
        return missing;
    }

    @Override
    public void onRequestPermissionsResult(int requestCode, String[] permissions, int[] results) {
        for (int i = 0; i < permissions.length && i < results.length; i++) {
            if (!android.Manifest.permission.SEND_SMS.equals(permissions[i])) continue;
            // Refused with no dialog shown (no rationale either): Android's restricted settings held it back.
            boolean silently = results[i] != PackageManager.PERMISSION_GRANTED && !shouldShowRequestPermissionRationale(permissions[i]);
            AndroidPhoneState.prefs(this).edit().putBoolean(AndroidPhoneState.SMS_DENIED_SILENTLY, silently).apply();
        }
        build();
    }

    @Override
    protected void onActivityResult(int requestCode, int resultCode, Intent data) {
        if (resultCode != RESULT_OK || data == null) return;
        if (requestCode == SCAN) {
            pairWithUrl(data.getStringExtra(ScanActivity.EXTRA_PAYLOAD));
        } else if (requestCode == PICK_CA && data.getData() != null) {
            try {
                InputStream in = getContentResolver().openInputStream(data.getData());
                ByteArrayOutputStream out = new ByteArrayOutputStream();
                byte[] b = new byte[4096];
                for (int n = in.read(b); n >= 0 && out.size() < 256 * 1024; n = in.read(b)) out.write(b, 0, n);
                in.close();
                String pem = new String(out.toByteArray(), "US-ASCII");
                Tls.parseCertificates(pem);
                runtime.credentials.saveCaPem(pem);
                build();
            } catch (Exception e) {
                say("Not a certificate file: " + e.getMessage());
            }
        }
    }

    private void pairWithUrl(String url) {
        try {
            pair(Pairing.fromPairingUrl(url));
        } catch (PairingException e) {
            say(e.getMessage());
        }
    }

    /** Pairs off the main thread, then starts the agent. */
    private void pair(final Pairing.Request request) {
        if (pairing) return;
        pairing = true;
        say("Pairing with " + request.hubUrl + "…");
        final String name = Build.MANUFACTURER + " " + Build.MODEL;
        new Thread(new Runnable() {
            @Override
            public void run() {
                String error = null;
                try {
                    String version = getPackageManager().getPackageInfo(getPackageName(), 0).versionName;
                    Credentials c = Pairing.pair(request, name, version, Tls.create(runtime.credentials.caPem()));
                    runtime.credentials.save(c);
                    runtime.credentials.setStoppedByUser(false);
                } catch (PairingException e) {
                    error = e.getMessage();
                } catch (Exception e) {
                    error = "pairing failed: " + e;
                }
                final String shown = error;
                main.post(new Runnable() {
                    @Override
                    public void run() {
                        pairing = false;
                        if (shown != null) {
                            say(shown);
                            return;
                        }
                        if (!missingPermissions().isEmpty()) {
                            requestPermissions(missingPermissions().toArray(new String[0]), PERMISSIONS);
                        }
                        AgentService.start(MainActivity.this);
                        build();
                    }
                });
            }
        }, "pairing").start();
    }

    private void confirmUnpair() {
        Credentials c = runtime.credentials.credentials();
        if (c == null) return;
        Outbox outbox = runtime.outbox(c.deviceId);
        int waiting = outbox.pendingReports().size() + outbox.queued();
        String message = "This phone stops receiving SMS. Pairing again as the same phone (its device password) "
                + "brings back what its outbox still holds" + (waiting > 0 ? " (" + waiting + " SMS or reports waiting)." : ".");
        new AlertDialog.Builder(this).setTitle("Unpair?").setMessage(message)
                .setPositiveButton("Unpair", new DialogInterface.OnClickListener() {
                    @Override
                    public void onClick(DialogInterface dialog, int which) {
                        AgentService.stop(MainActivity.this);
                        runtime.credentials.forget();
                        build();
                    }
                }).setNegativeButton("Cancel", null).show();
    }

    private void say(String message) {
        new AlertDialog.Builder(this).setMessage(message).setPositiveButton("OK", null).show();
    }

    private TextView text(String s) {
        TextView t = new TextView(this);
        t.setText(s);
        t.setTextIsSelectable(true);
        t.setPadding(0, dp(4), 0, dp(4));
        return t;
    }

    private void heading(String s) {
        TextView t = text(s);
        t.setTextSize(20);
        t.setPadding(0, dp(16), 0, dp(4));
        column.addView(t);
    }

    private EditText field(String hint, int variation) {
        EditText e = new EditText(this);
        e.setHint(hint);
        e.setSingleLine(true);
        e.setInputType(InputType.TYPE_CLASS_TEXT | variation);
        column.addView(e);
        return e;
    }

    private void button(String label, View.OnClickListener onClick) {
        Button b = new Button(this);
        b.setText(label);
        b.setOnClickListener(onClick);
        column.addView(b);
    }

    private int dp(int value) {
        return Math.round(value * getResources().getDisplayMetrics().density);
    }
}
