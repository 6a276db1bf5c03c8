package org.smsgw.agent.core;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

import java.net.InetAddress;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

/** The client's framing against a server written from RFC 6455, and its TLS checks. */
public class WebSocketTransportTest {
    @ClassRule
    public static TemporaryFolder folder = new TemporaryFolder();

    static TestCerts localhostAndIp;
    static TestCerts nameOnly;

    @BeforeClass
    public static void certs() throws Exception {
        localhostAndIp = TestCerts.make(folder.getRoot(), "hub", "dns:localhost,dns:*.example.test,ip:127.0.0.1");
        nameOnly = TestCerts.make(folder.getRoot(), "named", "dns:hub.example.test");
    }

    @AfterClass
    public static void done() {
    }

    private static Transport plainTransport() {
        return new WebSocketTransport(null, "smsgw-agent-test", 5000);
    }

    @Test
    public void whenItConnectsThenTheUpgradeCarriesTheTokenAndSubprotocolAndFramesAreMaskedBothWays() throws Exception {
        TestWsServer server = TestWsServer.plain();
        try {
            TestWsServer.Events events = new TestWsServer.Events();
            Transport.Connection c = plainTransport().connect("ws://127.0.0.1:" + server.port() + "/v1/agent", "dtk_secret", events);
            server.accept();
            assertEquals("GET /v1/agent HTTP/1.1", server.requestLine);
            assertEquals("Bearer dtk_secret", server.requestHeaders.get("authorization"));
            assertEquals("smsgw.agent.v1", server.requestHeaders.get("sec-websocket-protocol"));
            assertEquals("13", server.requestHeaders.get("sec-websocket-version"));
            server.upgrade();
            assertEquals("open", events.next());
            server.text("{\"type\":\"hello\"}");
            assertEquals("text {\"type\":\"hello\"}", events.next());
            StringBuilder big = new StringBuilder();
            for (int i = 0; i < 300; i++) big.append("\u00e9");
            c.send(big.toString());
            Object[] frame = server.read();
            assertEquals(1, frame[0]);
            assertEquals(big.toString(), new String((byte[]) frame[1], "UTF-8"));
        } finally {
            server.close();
        }
    }

    @Test
    public void whenTheHubFragmentsAMessageAndPingsInBetweenThenTheMessageIsWholeAndThePingAnswered() throws Exception {
        TestWsServer server = TestWsServer.plain();
        try {
            TestWsServer.Events events = new TestWsServer.Events();
            plainTransport().connect("ws://127.0.0.1:" + server.port() + "/v1/agent", "t", events);
            server.accept();
            server.upgrade();
            assertEquals("open", events.next());
            server.frame(false, 1, "{\"type\":".getBytes("UTF-8"));
            server.frame(true, 9, new byte[] {1, 2, 3});
            server.frame(false, 0, "\"hel".getBytes("UTF-8"));
            server.frame(true, 0, "lo\"}".getBytes("UTF-8"));
            assertEquals("ping", events.next());
            assertEquals("text {\"type\":\"hello\"}", events.next());
            Object[] pong = server.read();
            assertEquals(0xA, pong[0]);
            assertArrayEquals(new byte[] {1, 2, 3}, (byte[]) pong[1]);
        } finally {
            server.close();
        }
    }

    @Test
    public void whenTheHubClosesThenTheClientEchoesTheCloseAndReportsItsCode() throws Exception {
        TestWsServer server = TestWsServer.plain();
        try {
            TestWsServer.Events events = new TestWsServer.Events();
            plainTransport().connect("ws://127.0.0.1:" + server.port() + "/v1/agent", "t", events);
            server.accept();
            server.upgrade();
            events.next();
            server.frame(true, 8, new byte[] {(byte) 0x0f, (byte) 0xa2, 'b', 'y', 'e'}); // 4002
            Object[] echo = server.read();
            assertEquals(8, echo[0]);
            assertEquals("closed 4002 0", events.next());
        } finally {
            server.close();
        }
    }

    @Test
    public void whenTheClientClosesThenItSendsItsCodeAndEndsWhenTheHubAnswers() throws Exception {
        TestWsServer server = TestWsServer.plain();
        try {
            TestWsServer.Events events = new TestWsServer.Events();
            Transport.Connection c = plainTransport().connect("ws://127.0.0.1:" + server.port() + "/v1/agent", "t", events);
            server.accept();
            server.upgrade();
            events.next();
            c.close(1000, "agent stopping");
            Object[] close = server.read();
            byte[] p = (byte[]) close[1];
            assertEquals(8, close[0]);
            assertEquals(1000, ((p[0] & 0xff) << 8) | (p[1] & 0xff));
            server.frame(true, 8, new byte[] {0x03, (byte) 0xe8});
            assertEquals("closed 1000 0", events.next());
        } finally {
            server.close();
        }
    }

    @Test
    public void whenTheHubRefusesTheUpgradeThenItsHttpStatusIsReported() throws Exception {
        TestWsServer server = TestWsServer.plain();
        try {
            TestWsServer.Events events = new TestWsServer.Events();
            plainTransport().connect("ws://127.0.0.1:" + server.port() + "/v1/agent", "bad", events);
            server.accept();
            server.raw("HTTP/1.1 401 Unauthorized\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}".getBytes("US-ASCII"));
            assertEquals("closed 1006 401", events.next());
        } finally {
            server.close();
        }
    }

    @Test
    public void whenTheAnswerIsNotAProperUpgradeOrAFrameIsMaskedThenTheConnectionFails() throws Exception {
        TestWsServer server = TestWsServer.plain();
        try {
            TestWsServer.Events events = new TestWsServer.Events();
            plainTransport().connect("ws://127.0.0.1:" + server.port() + "/v1/agent", "t", events);
            server.accept();
            server.raw("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nSec-WebSocket-Accept: wrong\r\n\r\n".getBytes("US-ASCII"));
            assertEquals("closed 1006 -1", events.next());
        } finally {
            server.close();
        }
        server = TestWsServer.plain();
        try {
            TestWsServer.Events events = new TestWsServer.Events();
            plainTransport().connect("ws://127.0.0.1:" + server.port() + "/v1/agent", "t", events);
            server.accept();
            server.upgrade();
            events.next();
            server.raw(new byte[] {(byte) 0x81, (byte) 0x81, 1, 2, 3, 4, 5});
            assertEquals("closed 1002 0", events.next());
        } finally {
            server.close();
        }
    }

    private static TestWsServer tlsServer(TestCerts certs) throws Exception {
        SSLServerSocket s = (SSLServerSocket) certs.serverSockets().createServerSocket(0, 1, InetAddress.getByName("127.0.0.1"));
        return new TestWsServer(s);
    }

    @Test
    public void whenTheHubsCaIsGivenThenTlsConnectsAndWithoutItTheCertificateIsRefused() throws Exception {
        TestWsServer server = tlsServer(localhostAndIp);
        try {
            TestWsServer.Events events = new TestWsServer.Events();
            new WebSocketTransport(Tls.create(localhostAndIp.pem), "t", 5000)
                    .connect("wss://127.0.0.1:" + server.port() + "/v1/agent", "t", events);
            server.accept();
            server.upgrade();
            assertEquals("open", events.next());
        } finally {
            server.close();
        }
        final TestWsServer untrusted = tlsServer(localhostAndIp);
        try {
            TestWsServer.Events events = new TestWsServer.Events();
            new WebSocketTransport(Tls.create(null), "t", 5000).connect("wss://127.0.0.1:" + untrusted.port() + "/v1/agent", "t", events);
            acceptQuietly(untrusted);
            assertEquals("closed 1006 0", events.next());
        } finally {
            untrusted.close();
        }
    }

    @Test
    public void whenTheCertificateIsForAnotherHostThenTheConnectionIsRefused() throws Exception {
        TestWsServer server = tlsServer(nameOnly);
        try {
            TestWsServer.Events events = new TestWsServer.Events();
            new WebSocketTransport(Tls.create(nameOnly.pem), "t", 5000).connect("wss://127.0.0.1:" + server.port() + "/v1/agent", "t", events);
            acceptQuietly(server);
            assertEquals("closed 1006 0", events.next());
            assertTrue(server.requestHeaders.isEmpty());
        } finally {
            server.close();
        }
    }

    /**
     * A resumed TLS 1.3 session gets a new id but keeps the creation time of the full handshake
     * it came from (JDK), on the hub's side as on the phone's: equal times tell a resumption.
     */
    @Test
    public void whenTheTransportConnectsAgainToTheSameHubThenItResumesItsTlsSessionAndAnotherTlsContextCannot() throws Exception {
        TestWsServer server = tlsServer(localhostAndIp);
        try {
            WebSocketTransport transport = new WebSocketTransport(Tls.create(localhostAndIp.pem), "t", 5000);
            long first = sessionCreatedOnHub(transport, server);
            Thread.sleep(5);
            assertEquals(first, sessionCreatedOnHub(transport, server));
            // What a phone would do with a new SSLContext per connection: a full handshake each time.
            assertNotEquals(first, sessionCreatedOnHub(new WebSocketTransport(Tls.create(localhostAndIp.pem), "t", 5000), server));
        } finally {
            server.close();
        }
    }

    /** One connection through `transport`, upgraded then closed; the creation time of its session on the hub's side. */
    private static long sessionCreatedOnHub(WebSocketTransport transport, TestWsServer server) throws Exception {
        TestWsServer.Events events = new TestWsServer.Events();
        transport.connect("wss://127.0.0.1:" + server.port() + "/v1/agent", "t", events);
        server.accept();
        server.upgrade();
        assertEquals("open", events.next());
        long created = ((SSLSocket) server.socket).getSession().getCreationTime();
        server.socket.close();
        assertEquals("closed 1006 0", events.next());
        return created;
    }

    private static void acceptQuietly(TestWsServer server) {
        try {
            server.accept();
        } catch (Exception expected) {
            // the client gives up during the TLS handshake
        }
    }
}
