package org.smsgw.agent.e2e;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.nio.charset.Charset;
import java.nio.file.Files;
import java.security.SecureRandom;
import java.util.List;
import org.json.JSONObject;
import org.smsgw.agent.core.Agent;
import org.smsgw.agent.core.Clock;
import org.smsgw.agent.core.Credentials;
import org.smsgw.agent.core.ExecutorEventLoop;
import org.smsgw.agent.core.HubClient;
import org.smsgw.agent.core.Inbox;
import org.smsgw.agent.core.JdbcSqlDb;
import org.smsgw.agent.core.Logger;
import org.smsgw.agent.core.Outbox;
import org.smsgw.agent.core.OutboxEntry;
import org.smsgw.agent.core.Pairing;
import org.smsgw.agent.core.PairingException;
import org.smsgw.agent.core.ReceivedSms;
import org.smsgw.agent.core.Report;
import org.smsgw.agent.core.SmsParts;
import org.smsgw.agent.core.SmsResults;
import org.smsgw.agent.core.SmsSender;
import org.smsgw.agent.core.SqlOutboxStore;
import org.smsgw.agent.core.Tls;
import org.smsgw.agent.core.Transport;
import org.smsgw.agent.core.WebSocketTransport;

/**
 * The app's core as the phone runs it, on the JVM, driven by e2e/test/android-app.test.ts: the
 * same pairing, hub connection, outbox (SQLite, through JDBC) and report mapping, with a
 * stand-in for SmsManager that records each hand-over and lets the test play Android's sent and
 * delivery reports. Commands come as JSON lines on stdin, events go as JSON lines to stdout.
 *
 * <pre>
 *   java ... org.smsgw.agent.e2e.Harness --data DIR --ca CA.pem --boot BOOT_ID
 *   {"cmd":"pair_url","url":"https://.../v1/agent/pair?code=..."}
 *   {"cmd":"pair_password","hub":"127.0.0.1:8444","client_id":"client_1","password":"ABCD-..."}
 *   {"cmd":"start"}                       the agent of the stored credentials
 *   {"cmd":"receive","from":"+336...","parts":["a","b"],"sim":1}   an SMS received (protocol 3)
 *   {"cmd":"inbox"}                       the received_ids not yet acknowledged
 *   {"cmd":"sent","message_id":"msg_..","part":0,"result":-1,"error_code":-1}
 *   {"cmd":"delivered","message_id":"msg_..","part":0,"tp_status":0}
 *   {"cmd":"drop"}                        cuts the TCP connection without a close frame
 *   {"cmd":"pending"}                     the reports the hub has not acknowledged
 *   {"cmd":"entry","message_id":"msg_.."} its outbox state, and whether Android holds it
 *   {"cmd":"stop"}
 * </pre>
 */
public final class Harness {
    private static final Charset UTF8 = Charset.forName("UTF-8");

    private final File dataDir;
    private final String caPem;
    private final String bootId;
    private Outbox outbox;
    private Inbox inbox;
    private Agent agent;
    private ExecutorEventLoop loop;
    private volatile Transport.Connection current;

    private Harness(File dataDir, String caPem, String bootId) {
        this.dataDir = dataDir;
        this.caPem = caPem;
        this.bootId = bootId;
    }

    public static void main(String[] args) throws Exception {
        File data = null;
        String ca = null;
        String boot = "boot-1";
        for (int i = 0; i < args.length; i += 2) {
            if ("--data".equals(args[i])) data = new File(args[i + 1]);
            else if ("--ca".equals(args[i])) ca = new String(Files.readAllBytes(new File(args[i + 1]).toPath()), UTF8);
            else if ("--boot".equals(args[i])) boot = args[i + 1];
        }
        if (data == null) throw new IllegalArgumentException("--data is required");
        data.mkdirs();
        Harness h = new Harness(data, ca, boot);
        emit(event("event", "ready"));
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, UTF8));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            if (line.trim().isEmpty()) continue;
            try {
                h.handle(new JSONObject(line));
            } catch (Exception e) {
                emit(event("event", "error", "message", String.valueOf(e)));
            }
        }
        h.stop();
    }

    private void handle(JSONObject cmd) throws Exception {
        String name = cmd.getString("cmd");
        if ("pair_url".equals(name)) {
            pair(Pairing.fromPairingUrl(cmd.getString("url")));
        } else if ("pair_password".equals(name)) {
            pair(Pairing.withPassword(cmd.getString("hub"), cmd.getString("client_id"), cmd.getString("password")));
        } else if ("start".equals(name)) {
            start();
        } else if ("sent".equals(name)) {
            SmsResults.sent(outbox, cmd.getString("message_id"), cmd.getInt("part"), cmd.getInt("result"), cmd.optInt("error_code", -1));
        } else if ("delivered".equals(name)) {
            SmsResults.delivered(outbox, cmd.getString("message_id"), cmd.getInt("part"), "3gpp",
                    statusReportPdu(cmd.getInt("tp_status")), -1);
        } else if ("drop".equals(name)) {
            Transport.Connection c = current;
            if (c != null) c.abort();
        } else if ("pending".equals(name)) {
            org.json.JSONArray reports = new org.json.JSONArray();
            for (Report r : outbox.pendingReports()) reports.put(r.messageId + " " + r.status);
            emit(event("event", "pending", "reports", reports, "queued", outbox.queued()));
        } else if ("entry".equals(name)) {
            OutboxEntry e = outbox.get(cmd.getString("message_id"));
            emit(event("event", "entry", "message_id", cmd.getString("message_id"), "state", e == null ? "gone" : e.state,
                    "handed_over", e != null && e.handedAt > 0));
        } else if ("receive".equals(name)) {
            // As SmsReceiver does with one SMS_RECEIVED intent: the parts (texts) of one sender, put together,
            // sealed with the owner's passphrase when the app holds one (protocol 8).
            String passphrase = cmd.optString("passphrase", null);
            org.json.JSONArray texts = cmd.getJSONArray("parts");
            List<SmsParts.Part> parts = new java.util.ArrayList<SmsParts.Part>();
            for (int i = 0; i < texts.length(); i++) parts.add(new SmsParts.Part(cmd.getString("from"), texts.getString(i), 0));
            for (SmsParts.Message m : SmsParts.reassemble(parts)) {
                ReceivedSms sms = inbox.receive(m.from, m.text, cmd.optInt("sim", 0), System.currentTimeMillis(), passphrase);
                emit(event("event", "received", "received_id", sms.receivedId));
            }
        } else if ("inbox".equals(name)) {
            org.json.JSONArray ids = new org.json.JSONArray();
            for (ReceivedSms sms : inbox.pending()) ids.put(sms.receivedId);
            emit(event("event", "inbox", "received_ids", ids));
        } else if ("stop".equals(name)) {
            stop();
            emit(event("event", "stopped"));
        } else {
            throw new IllegalArgumentException("unknown command " + name);
        }
    }

    private void pair(Pairing.Request request) throws Exception {
        try {
            Credentials c = Pairing.pair(request, "jvm-harness", "0.1.0", Tls.create(caPem));
            Files.write(new File(dataDir, "credentials.json").toPath(), c.toJson().getBytes(UTF8));
            emit(event("event", "paired", "device_id", c.deviceId, "ws_url", c.wsUrl));
        } catch (PairingException e) {
            emit(event("event", "pair_failed", "kind", e.kind.name(), "message", e.getMessage()));
        }
    }

    private void start() throws Exception {
        Credentials c = Credentials.fromJson(new String(Files.readAllBytes(new File(dataDir, "credentials.json").toPath()), UTF8));
        JdbcSqlDb db = new JdbcSqlDb(new File(dataDir, "outbox-" + c.deviceId + ".db").getPath());
        SqlOutboxStore store = new SqlOutboxStore(db);
        store.createSchema();
        inbox = new Inbox(db);
        outbox = Outbox.open(store, Clock.SYSTEM, bootId);
        for (String id : outbox.failedAtOpen()) emit(event("event", "failed_at_open", "message_id", id));
        final Transport real = new WebSocketTransport(Tls.create(caPem), "smsgw-agent-jvm-harness", 10000);
        Transport remembering = new Transport() {
            @Override
            public Connection connect(String url, String token, Listener listener) {
                Connection conn = real.connect(url, token, listener);
                current = conn;
                return conn;
            }
        };
        loop = new ExecutorEventLoop("harness-agent", Logger.STDERR);
        agent = new Agent(c, outbox, inbox, new StandInSender(), remembering, loop, Clock.SYSTEM, new SecureRandom(), Logger.STDERR,
                new Agent.Listener() {
                    private HubClient.State last;

                    @Override
                    public void onStatus(Agent.Status status) {
                        if (status.state == last) return;
                        last = status.state;
                        emit(event("event", "state", "state", status.state.name()));
                    }

                    @Override
                    public void onFatal(HubClient.Fatal fatal, String message) {
                        emit(event("event", "fatal", "fatal", fatal.name(), "message", message));
                    }
                }, HubClient.REPORT_RESEND_MS);
        agent.start();
    }

    private void stop() throws InterruptedException {
        if (agent == null) return;
        agent.stop();
        Thread.sleep(500);
        loop.shutdown();
        loop.awaitTermination(3000);
        agent = null;
    }

    /** SmsManager's stand-in: GSM-7 sizes (160 alone, 153 a part), every hand-over told to the test. */
    private static final class StandInSender implements SmsSender {
        @Override
        public List<String> divide(String text) {
            List<String> parts = new java.util.ArrayList<String>();
            if (text.length() <= 160) {
                parts.add(text);
            } else {
                for (int i = 0; i < text.length(); i += 153) parts.add(text.substring(i, Math.min(text.length(), i + 153)));
            }
            return parts;
        }

        /** SIMs unknown, as a phone that refused READ_PHONE_STATE: every SMS goes through the default SIM. */
        @Override
        public List<org.smsgw.agent.core.Sim> sims() {
            return null;
        }

        @Override
        public int defaultSlot() {
            return 0;
        }

        @Override
        public void send(String messageId, String to, List<String> parts, org.smsgw.agent.core.Sim sim) {
            emit(event("event", "send", "message_id", messageId, "to", to, "parts", parts.size()));
        }
    }

    /** An SMS-STATUS-REPORT PDU as Android hands it to the delivery PendingIntent, with this TP-Status. */
    static byte[] statusReportPdu(int tpStatus) {
        String hex = "07913306091093F0" + "06" + "2A" + "0B913316325476F8" + "52117241150040" + "52117241150540"
                + String.format("%02X", tpStatus);
        byte[] out = new byte[hex.length() / 2];
        for (int i = 0; i < out.length; i++) out[i] = (byte) Integer.parseInt(hex.substring(2 * i, 2 * i + 2), 16);
        return out;
    }

    private static JSONObject event(Object... keysAndValues) {
        try {
            JSONObject o = new JSONObject();
            for (int i = 0; i < keysAndValues.length; i += 2) o.put((String) keysAndValues[i], keysAndValues[i + 1]);
            return o;
        } catch (org.json.JSONException e) {
            throw new IllegalStateException(e);
        }
    }

    private static synchronized void emit(JSONObject event) {
        System.out.println(event.toString());
        System.out.flush();
    }
}
