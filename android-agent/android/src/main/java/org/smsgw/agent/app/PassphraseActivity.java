package org.smsgw.agent.app;

import android.app.Activity;
import android.app.AlertDialog;
import android.os.Bundle;
import android.text.InputType;
import android.view.View;
import android.view.WindowManager;
import android.widget.Button;
import android.widget.EditText;
import android.widget.LinearLayout;
import android.widget.TextView;
import java.security.GeneralSecurityException;
import org.smsgw.agent.core.PassphraseStore;

/**
 * The end-to-end passphrase screen (protocol 8): the owner types the passphrase the senders seal
 * their texts with, or clears it. It is kept on this phone only (PassphraseStore, sealed under an
 * Android Keystore key) and never sent: the agent opens envelopes and seals received SMS with it.
 */
public final class PassphraseActivity extends Activity {
    private AgentRuntime runtime;
    private LinearLayout column;

    @Override
    protected void onCreate(Bundle state) {
        super.onCreate(state);
        // No screenshots and no recent-apps thumbnail of a screen with the passphrase on it.
        getWindow().setFlags(WindowManager.LayoutParams.FLAG_SECURE, WindowManager.LayoutParams.FLAG_SECURE);
        runtime = AgentRuntime.get(this);
        column = new LinearLayout(this);
        column.setOrientation(LinearLayout.VERTICAL);
        int pad = Math.round(16 * getResources().getDisplayMetrics().density);
        column.setPadding(pad, pad, pad, pad);
        setContentView(column);
        build();
    }

    private void build() {
        column.removeAllViews();
        final PassphraseStore store = runtime.passphrase;
        text("End-to-end passphrase", 20);
        text("Texts sent with encrypted: true are opened with it right before they are sent, and every SMS this phone receives "
                + "is sealed with it before it leaves the phone. It stays on this phone (sealed with a key of its Android "
                + "Keystore) and is never sent to the gateway. Use the passphrase your senders use.", 14);
        text(store.isSet() ? "A passphrase is set on this phone." : "No passphrase is set: encrypted texts fail DECRYPTION_FAILED, "
                + "received SMS go to the gateway in clear.", 14);
        final EditText field = new EditText(this);
        field.setHint(store.isSet() ? "New passphrase" : "Passphrase");
        field.setSingleLine(true);
        field.setInputType(InputType.TYPE_CLASS_TEXT | InputType.TYPE_TEXT_VARIATION_PASSWORD);
        column.addView(field);
        button("Save the passphrase", new View.OnClickListener() {
            @Override
            public void onClick(View v) {
                save(store, field.getText().toString());
            }
        });
        if (store.isSet()) {
            button("Clear the passphrase", new View.OnClickListener() {
                @Override
                public void onClick(View v) {
                    store.clear();
                    AgentService.passphraseChanged(null);
                    build();
                }
            });
        }
    }

    private void save(PassphraseStore store, String entered) {
        String problem = PassphraseStore.problem(entered);
        if (problem != null) {
            say(problem);
            return;
        }
        try {
            store.save(entered);
        } catch (GeneralSecurityException e) {
            say("The passphrase cannot be sealed with the Android Keystore: " + e.getMessage());
            return;
        }
        AgentService.passphraseChanged(entered);
        say("Saved. Encrypted texts are opened with it, and received SMS sealed, from now on.");
        build();
    }

    private void say(String message) {
        new AlertDialog.Builder(this).setMessage(message).setPositiveButton("OK", null).show();
    }

    private void text(String s, int size) {
        TextView t = new TextView(this);
        t.setText(s);
        t.setTextSize(size);
        t.setPadding(0, 8, 0, 8);
        column.addView(t);
    }

    private void button(String label, View.OnClickListener onClick) {
        Button b = new Button(this);
        b.setText(label);
        b.setOnClickListener(onClick);
        column.addView(b);
    }
}
