package org.smsgw.agent.core;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.HttpURLConnection;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.URL;
import java.net.URLDecoder;
import java.nio.charset.Charset;
import java.util.Locale;
import javax.net.ssl.HttpsURLConnection;
import org.json.JSONException;
import org.json.JSONObject;

/** Pairing with the hub (PROTOCOL.md §1): the QR code's URL, or the client id and device password. */
public final class Pairing {
    private static final Charset UTF8 = Charset.forName("UTF-8");
    private static final int TIMEOUT_MS = 20000;
    // An answer is a few hundred bytes; anything much larger is not the hub.
    private static final int MAX_ANSWER_BYTES = 64 * 1024;

    /** What to send: a one-time code, or a client id and device password. */
    public static final class Request {
        public final String hubUrl;
        public final String pairingCode;
        public final String clientId;
        public final String devicePassword;

        private Request(String hubUrl, String pairingCode, String clientId, String devicePassword) {
            this.hubUrl = hubUrl;
            this.pairingCode = pairingCode;
            this.clientId = clientId;
            this.devicePassword = devicePassword;
        }
    }

    private Pairing() {
    }

    /** The QR code's payload: {@code https://<hub>/v1/agent/pair?code=<CODE>}. */
    public static Request fromPairingUrl(String scanned) throws PairingException {
        String text = scanned == null ? "" : scanned.trim();
        URI uri;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            throw invalid("this is not a pairing URL");
        }
        String code = queryParam(uri.getRawQuery(), "code");
        if (!"https".equalsIgnoreCase(uri.getScheme()) || uri.getHost() == null || code == null || code.isEmpty()
                || !Protocol.PAIR_PATH.equals(uri.getPath())) {
            throw invalid("a pairing URL looks like https://<hub>/v1/agent/pair?code=<CODE>");
        }
        return new Request(originOf(uri), code, null, null);
    }

    /** The hub address as typed ({@code hub.example.com:8444} or an https URL), the client id and password. */
    public static Request withPassword(String hub, String clientId, String devicePassword) throws PairingException {
        String client = clientId == null ? "" : clientId.trim();
        String password = devicePassword == null ? "" : devicePassword.trim();
        if (!client.matches("client_[0-9]+")) throw invalid("a client id looks like client_1234567890");
        if (!password.toUpperCase(Locale.ROOT).replaceAll("[\\s-]", "").matches("[A-Z0-9]{16}")) {
            throw invalid("a device password looks like ABCD-EFGH-JKMN-PQRS");
        }
        return new Request(hubOrigin(hub), null, client, password);
    }

    /** {@code https://host[:port]} from what a person typed; plain http is refused. */
    public static String hubOrigin(String typed) throws PairingException {
        String text = typed == null ? "" : typed.trim();
        if (text.isEmpty()) throw invalid("give the hub's address, for example hub.example.com:8444");
        if (!text.contains("://")) text = "https://" + text;
        URI uri;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            throw invalid("not a hub address: " + typed);
        }
        if (!"https".equalsIgnoreCase(uri.getScheme())) throw invalid("the hub is reached over https only");
        if (uri.getHost() == null) throw invalid("not a hub address: " + typed);
        return originOf(uri);
    }

    /** POST /v1/agent/pair. */
    public static Credentials pair(Request request, String agentName, String agentVersion, Tls tls) throws PairingException {
        JSONObject body = new JSONObject();
        try {
            if (request.pairingCode != null) {
                body.put("pairing_code", request.pairingCode);
            } else {
                body.put("client_id", request.clientId).put("device_password", request.devicePassword);
            }
            body.put("agent", new JSONObject().put("name", agentName).put("version", agentVersion).put("driver", "android"));
        } catch (JSONException e) {
            throw new IllegalStateException(e);
        }
        HttpURLConnection http = null;
        int status;
        String answerText;
        String retryAfter;
        try {
            http = (HttpURLConnection) new URL(request.hubUrl + Protocol.PAIR_PATH).openConnection();
            if (!(http instanceof HttpsURLConnection)) throw invalid("the hub is reached over https only");
            HttpsURLConnection https = (HttpsURLConnection) http;
            https.setSSLSocketFactory(tls.socketFactory());
            https.setHostnameVerifier(tls.hostnameVerifier());
            http.setConnectTimeout(TIMEOUT_MS);
            http.setReadTimeout(TIMEOUT_MS);
            http.setRequestMethod("POST");
            http.setDoOutput(true);
            http.setRequestProperty("Content-Type", "application/json");
            http.setRequestProperty("Accept", "application/json");
            byte[] bytes = body.toString().getBytes(UTF8);
            // No streaming mode: with it the JDK's client hides the body of a 401, which holds the hub's reason.
            OutputStream out = http.getOutputStream();
            out.write(bytes);
            out.close();
            status = http.getResponseCode();
            retryAfter = http.getHeaderField("Retry-After");
            InputStream in = status >= 400 ? http.getErrorStream() : http.getInputStream();
            answerText = in == null ? "" : readAll(in);
        } catch (IOException e) {
            throw new PairingException(PairingException.Kind.FAILED, "could not reach the hub at " + request.hubUrl + ": " + e.getMessage());
        } finally {
            if (http != null) http.disconnect();
        }
        JSONObject answer = parse(answerText);
        String hubMessage = messageOf(answer);
        if (status == 401) {
            throw new PairingException(PairingException.Kind.REFUSED,
                    "pairing refused: " + (hubMessage != null ? hubMessage : "unknown, used or expired code, or wrong password"));
        }
        if (status == 429) {
            long wait = parseSeconds(retryAfter);
            throw new PairingException(PairingException.Kind.THROTTLED,
                    "too many pairing attempts" + (hubMessage != null ? " (" + hubMessage + ")" : "")
                            + (wait > 0 ? "; try again in " + wait + " s" : ""), wait);
        }
        if (status != 200 || answer == null) {
            throw new PairingException(PairingException.Kind.FAILED,
                    "pairing failed: the hub answered HTTP " + status + (hubMessage != null ? ": " + hubMessage : ""));
        }
        String deviceId = answer.optString("device_id", "");
        String token = answer.optString("device_token", "");
        String wsUrl = answer.optString("ws_url", "");
        if (deviceId.isEmpty() || token.isEmpty() || !wsUrl.startsWith("wss://")) {
            throw new PairingException(PairingException.Kind.FAILED, "pairing failed: the hub's answer lacks device_id, device_token or a wss ws_url");
        }
        // The token goes only to the host the phone paired with, whatever the answer says.
        if (!Credentials.onHubHost(request.hubUrl, wsUrl)) {
            throw new PairingException(PairingException.Kind.FAILED,
                    "pairing failed: the hub's ws_url is not on the host the phone paired with (" + request.hubUrl + ")");
        }
        return new Credentials(request.hubUrl, deviceId, token, wsUrl);
    }

    private static PairingException invalid(String message) {
        return new PairingException(PairingException.Kind.INVALID_INPUT, message);
    }

    private static String originOf(URI uri) {
        String host = uri.getHost().toLowerCase(Locale.ROOT);
        return "https://" + host + (uri.getPort() > 0 && uri.getPort() != 443 ? ":" + uri.getPort() : "");
    }

    private static String queryParam(String rawQuery, String name) {
        if (rawQuery == null) return null;
        for (String pair : rawQuery.split("&")) {
            int eq = pair.indexOf('=');
            String key = eq < 0 ? pair : pair.substring(0, eq);
            if (key.equals(name)) {
                try {
                    return URLDecoder.decode(eq < 0 ? "" : pair.substring(eq + 1), "UTF-8");
                } catch (java.io.UnsupportedEncodingException e) {
                    throw new IllegalStateException(e);
                }
            }
        }
        return null;
    }

    private static JSONObject parse(String text) {
        try {
            return new JSONObject(text);
        } catch (JSONException e) {
            return null;
        }
    }

    private static String messageOf(JSONObject answer) {
        if (answer == null) return null;
        JSONObject error = answer.optJSONObject("error");
        if (error == null) return null;
        String m = error.optString("message", "");
        return m.isEmpty() ? error.optString("code", null) : m;
    }

    private static long parseSeconds(String value) {
        try {
            return value == null ? 0 : Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static String readAll(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[4096];
        try {
            for (int n = in.read(buffer); n >= 0; n = in.read(buffer)) {
                out.write(buffer, 0, n);
                if (out.size() > MAX_ANSWER_BYTES) throw new IOException("the hub's answer is too large");
            }
        } finally {
            in.close();
        }
        return new String(out.toByteArray(), UTF8);
    }
}
