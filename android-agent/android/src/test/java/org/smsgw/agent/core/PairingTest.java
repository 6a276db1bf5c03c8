package org.smsgw.agent.core;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.fail;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import org.json.JSONObject;
import org.junit.After;
import org.junit.Before;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** Pairing against an HTTPS server that answers as the hub does (PROTOCOL.md §1). */
public class PairingTest {
    @ClassRule
    public static TemporaryFolder folder = new TemporaryFolder();

    static TestCerts certs;
    private HttpsServer server;
    private volatile int status;
    private volatile String answer;
    private volatile String retryAfter;
    private volatile JSONObject received;

    @BeforeClass
    public static void makeCerts() throws Exception {
        certs = TestCerts.make(folder.getRoot(), "hub", "dns:localhost,ip:127.0.0.1");
    }

    @Before
    public void startHub() throws Exception {
        server = HttpsServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.setHttpsConfigurator(new HttpsConfigurator(certs.serverContext));
        server.createContext("/v1/agent/pair", new HttpHandler() {
            @Override
            public void handle(HttpExchange exchange) {
                try {
                    InputStream in = exchange.getRequestBody();
                    ByteArrayOutputStream body = new ByteArrayOutputStream();
                    byte[] b = new byte[1024];
                    for (int n = in.read(b); n >= 0; n = in.read(b)) body.write(b, 0, n);
                    received = new JSONObject(new String(body.toByteArray(), "UTF-8"));
                    byte[] out = answer.getBytes("UTF-8");
                    exchange.getResponseHeaders().add("Content-Type", "application/json");
                    if (retryAfter != null) exchange.getResponseHeaders().add("Retry-After", retryAfter);
                    exchange.sendResponseHeaders(status, out.length);
                    OutputStream o = exchange.getResponseBody();
                    o.write(out);
                    o.close();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
        });
        server.start();
    }

    @After
    public void stopHub() {
        server.stop(0);
    }

    private String hub() {
        return "https://127.0.0.1:" + server.getAddress().getPort();
    }

    private Credentials pair(Pairing.Request request) throws Exception {
        return Pairing.pair(request, "Pixel 8", "0.1.0", Tls.create(certs.pem));
    }

    @Test
    public void whenTheQrCodesUrlIsScannedThenItsCodeIsSentAndTheCredentialsKept() throws Exception {
        status = 200;
        answer = "{\"success\":true,\"device_id\":\"device_1\",\"device_token\":\"dtk_abc\",\"ws_url\":\"wss://127.0.0.1:1/v1/agent\",\"protocol\":1}";
        Pairing.Request request = Pairing.fromPairingUrl(hub() + "/v1/agent/pair?code=K7M2Q9XAHB4R8TN3CW6ZDF2PMQ5SJ7VE9G");
        assertEquals(hub(), request.hubUrl);
        Credentials c = pair(request);
        assertEquals("K7M2Q9XAHB4R8TN3CW6ZDF2PMQ5SJ7VE9G", received.getString("pairing_code"));
        assertEquals("android", received.getJSONObject("agent").getString("driver"));
        assertEquals("device_1", c.deviceId);
        assertEquals("dtk_abc", c.deviceToken);
        assertEquals("wss://127.0.0.1:1/v1/agent", c.wsUrl);
        assertEquals(c.toJson(), Credentials.fromJson(c.toJson()).toJson());
    }

    @Test
    public void whenTheClientIdAndPasswordAreTypedThenTheyAreSentAsTyped() throws Exception {
        status = 200;
        answer = "{\"success\":true,\"device_id\":\"device_2\",\"device_token\":\"dtk_x\",\"ws_url\":\"wss://127.0.0.1/v1/agent\"}";
        Pairing.Request request = Pairing.withPassword("127.0.0.1:" + server.getAddress().getPort(), " client_17 ", "abcd-efgh-jkmn-pqrs");
        pair(request);
        assertEquals("client_17", received.getString("client_id"));
        assertEquals("abcd-efgh-jkmn-pqrs", received.getString("device_password"));
    }

    @Test
    public void whenTheHubRefusesOrThrottlesThenTheKindAndTheWaitAreTold() throws Exception {
        status = 401;
        answer = "{\"success\":false,\"error\":{\"code\":\"INVALID_PAIRING\",\"message\":\"Code d'appairage invalide.\"}}";
        try {
            pair(Pairing.fromPairingUrl(hub() + "/v1/agent/pair?code=X"));
            fail();
        } catch (PairingException e) {
            assertEquals(PairingException.Kind.REFUSED, e.kind);
            assertEquals("pairing refused: Code d'appairage invalide.", e.getMessage());
        }
        status = 429;
        retryAfter = "120";
        answer = "{\"success\":false,\"error\":{\"code\":\"RATE_LIMIT_EXCEEDED\",\"message\":\"Trop\"}}";
        try {
            pair(Pairing.fromPairingUrl(hub() + "/v1/agent/pair?code=X"));
            fail();
        } catch (PairingException e) {
            assertEquals(PairingException.Kind.THROTTLED, e.kind);
            assertEquals(120, e.retryAfterSeconds);
        }
    }

    @Test
    public void whenTheHubIsNotTrustedOrAnswersNonsenseThenPairingFails() throws Exception {
        status = 200;
        answer = "{\"success\":true,\"device_id\":\"d\",\"device_token\":\"t\",\"ws_url\":\"ws://plain/v1/agent\"}";
        try {
            pair(Pairing.fromPairingUrl(hub() + "/v1/agent/pair?code=X"));
            fail();
        } catch (PairingException e) {
            assertEquals(PairingException.Kind.FAILED, e.kind);
        }
        try {
            Pairing.pair(Pairing.fromPairingUrl(hub() + "/v1/agent/pair?code=X"), "n", "v", Tls.create(null));
            fail();
        } catch (PairingException e) {
            assertEquals(PairingException.Kind.FAILED, e.kind);
        }
    }

    @Test
    public void whenTheHubAnswersAWsUrlOnAnotherHostThenPairingFailsAndNoCredentialsAreKept() throws Exception {
        status = 200;
        for (String ws : new String[] {"wss://evil.example/v1/agent", "wss://127.0.0.1.evil.example/v1/agent",
                "wss://user@evil.example@127.0.0.1/v1/agent"}) {
            answer = "{\"success\":true,\"device_id\":\"d\",\"device_token\":\"dtk_t\",\"ws_url\":\"" + ws + "\"}";
            try {
                pair(Pairing.fromPairingUrl(hub() + "/v1/agent/pair?code=X"));
                fail(ws);
            } catch (PairingException e) {
                assertEquals(PairingException.Kind.FAILED, e.kind);
                assertEquals(ws, true, e.getMessage().contains("not on the host the phone paired with"));
            }
        }
        // Another port of the same host is the hub's (an ingress may serve the WebSocket elsewhere).
        answer = "{\"success\":true,\"device_id\":\"d\",\"device_token\":\"dtk_t\",\"ws_url\":\"wss://127.0.0.1:9443/v1/agent\"}";
        assertEquals("wss://127.0.0.1:9443/v1/agent", pair(Pairing.fromPairingUrl(hub() + "/v1/agent/pair?code=X")).wsUrl);
        // Stored credentials whose ws_url was changed to another host are not used.
        String stored = new Credentials("https://hub.example.com", "d", "dtk_t", "wss://hub.example.com/v1/agent").toJson();
        assertEquals(null, Credentials.fromJson(new JSONObject(stored).put("ws_url", "wss://evil.example/v1/agent").toString()));
        assertEquals("dtk_t", Credentials.fromJson(stored).deviceToken);
    }

    @Test
    public void whenTheInputIsNotAPairingUrlOrAddressThenItIsRefusedBeforeAnyRequest() throws Exception {
        String[] bad = {"", "hello", "http://hub/v1/agent/pair?code=X", "https://hub/other?code=X", "https://hub/v1/agent/pair"};
        for (String input : bad) {
            try {
                Pairing.fromPairingUrl(input);
                fail(input);
            } catch (PairingException e) {
                assertEquals(PairingException.Kind.INVALID_INPUT, e.kind);
            }
        }
        assertEquals("https://hub.example.com:8444", Pairing.hubOrigin(" Hub.Example.com:8444/ "));
        assertEquals("https://hub.example.com", Pairing.hubOrigin("https://hub.example.com:443"));
        try {
            Pairing.hubOrigin("http://hub.example.com");
            fail();
        } catch (PairingException e) {
            assertEquals(PairingException.Kind.INVALID_INPUT, e.kind);
        }
        try {
            Pairing.withPassword("hub", "someone", "ABCD-EFGH-JKMN-PQRS");
            fail();
        } catch (PairingException e) {
            assertEquals(PairingException.Kind.INVALID_INPUT, e.kind);
        }
    }
}
