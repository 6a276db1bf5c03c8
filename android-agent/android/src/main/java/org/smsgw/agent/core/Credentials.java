package org.smsgw.agent.core;

import java.net.URI;
import java.net.URISyntaxException;
import org.json.JSONException;
import org.json.JSONObject;

/** What a pairing gave: kept in the app's private storage so that the phone never pairs twice. */
public final class Credentials {
    public final String hubUrl;
    public final String deviceId;
    public final String deviceToken;
    public final String wsUrl;

    public Credentials(String hubUrl, String deviceId, String deviceToken, String wsUrl) {
        this.hubUrl = hubUrl;
        this.deviceId = deviceId;
        this.deviceToken = deviceToken;
        this.wsUrl = wsUrl;
    }

    public String toJson() {
        try {
            return new JSONObject().put("hub_url", hubUrl).put("device_id", deviceId).put("device_token", deviceToken)
                    .put("ws_url", wsUrl).toString();
        } catch (JSONException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Null when the text is not stored credentials, or their ws_url is not on the paired hub's host. */
    public static Credentials fromJson(String text) {
        try {
            JSONObject o = new JSONObject(text);
            String hub = o.optString("hub_url", "");
            String id = o.optString("device_id", "");
            String token = o.optString("device_token", "");
            String ws = o.optString("ws_url", "");
            if (hub.isEmpty() || id.isEmpty() || token.isEmpty() || !onHubHost(hub, ws)) return null;
            return new Credentials(hub, id, token, ws);
        } catch (JSONException e) {
            return null;
        }
    }

    /**
     * Whether {@code wsUrl} is a wss:// URL on the host of {@code hubUrl} (the one the phone paired
     * with): a hub's answer, or stored credentials, cannot send the token to another host.
     */
    public static boolean onHubHost(String hubUrl, String wsUrl) {
        try {
            URI hub = new URI(hubUrl);
            URI ws = new URI(wsUrl);
            return "wss".equalsIgnoreCase(ws.getScheme()) && ws.getHost() != null && hub.getHost() != null
                    && ws.getHost().equalsIgnoreCase(hub.getHost()) && ws.getRawUserInfo() == null;
        } catch (URISyntaxException e) {
            return false;
        }
    }
}
