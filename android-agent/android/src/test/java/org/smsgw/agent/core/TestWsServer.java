package org.smsgw.agent.core;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One WebSocket connection's server side, written from RFC 6455 for the client's tests: it
 * checks the upgrade, unmasks what the client sends and can send anything, well formed or not.
 */
final class TestWsServer implements AutoCloseable {
    final ServerSocket server;
    Socket socket;
    InputStream in;
    OutputStream out;
    final Map<String, String> requestHeaders = new HashMap<String, String>();
    String requestLine;

    TestWsServer(ServerSocket server) {
        this.server = server;
    }

    static TestWsServer plain() throws IOException {
        return new TestWsServer(new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1")));
    }

    int port() {
        return server.getLocalPort();
    }

    /** Accepts the connection and reads the upgrade request. */
    void accept() throws IOException {
        server.setSoTimeout(10000);
        socket = server.accept();
        socket.setSoTimeout(10000);
        in = socket.getInputStream();
        out = socket.getOutputStream();
        requestLine = line();
        for (String l = line(); !l.isEmpty(); l = line()) {
            int colon = l.indexOf(':');
            requestHeaders.put(l.substring(0, colon).trim().toLowerCase(Locale.ROOT), l.substring(colon + 1).trim());
        }
    }

    void upgrade() throws IOException {
        String accept = WebSocketTransport.acceptOf(requestHeaders.get("sec-websocket-key"));
        raw(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: " + accept
                + "\r\nSec-WebSocket-Protocol: smsgw.agent.v1\r\n\r\n").getBytes("US-ASCII"));
    }

    void raw(byte[] bytes) throws IOException {
        out.write(bytes);
        out.flush();
    }

    void frame(boolean fin, int opcode, byte[] payload) throws IOException {
        ByteArrayOutputStream f = new ByteArrayOutputStream();
        f.write((fin ? 0x80 : 0) | opcode);
        if (payload.length < 126) {
            f.write(payload.length);
        } else {
            f.write(126);
            f.write(payload.length >> 8);
            f.write(payload.length);
        }
        f.write(payload, 0, payload.length);
        raw(f.toByteArray());
    }

    void text(String s) throws IOException {
        frame(true, 1, s.getBytes("UTF-8"));
    }

    /** The next frame from the client: {opcode, payload}, checking that it is masked. */
    Object[] read() throws IOException {
        int b0 = in.read();
        int b1 = in.read();
        if (b0 < 0 || b1 < 0) return null;
        if ((b1 & 0x80) == 0) throw new IOException("client frame not masked");
        long len = b1 & 0x7f;
        if (len == 126) len = (in.read() << 8) | in.read();
        else if (len == 127) {
            len = 0;
            for (int i = 0; i < 8; i++) len = (len << 8) | in.read();
        }
        byte[] mask = new byte[4];
        readFully(mask);
        byte[] p = new byte[(int) len];
        readFully(p);
        for (int i = 0; i < p.length; i++) p[i] ^= mask[i & 3];
        return new Object[] {b0 & 0x0f, p};
    }

    private void readFully(byte[] b) throws IOException {
        int n = 0;
        while (n < b.length) {
            int r = in.read(b, n, b.length - n);
            if (r < 0) throw new IOException("eof");
            n += r;
        }
    }

    private String line() throws IOException {
        StringBuilder b = new StringBuilder();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) throw new IOException("eof");
            if (c != '\r') b.append((char) c);
        }
        return b.toString();
    }

    @Override
    public void close() throws IOException {
        if (socket != null) socket.close();
        server.close();
    }

    /** What the client's listener heard, in order. */
    static final class Events implements Transport.Listener {
        final LinkedBlockingQueue<String> queue = new LinkedBlockingQueue<String>();

        @Override
        public void onOpen(Transport.Connection c) {
            queue.add("open");
        }

        @Override
        public void onText(Transport.Connection c, String text) {
            queue.add("text " + text);
        }

        @Override
        public void onPing(Transport.Connection c) {
            queue.add("ping");
        }

        @Override
        public void onPong(Transport.Connection c) {
            queue.add("pong");
        }

        @Override
        public void onClosed(Transport.Connection c, int code, String reason, int httpStatus) {
            queue.add("closed " + code + " " + httpStatus);
        }

        String next() throws InterruptedException {
            String e = queue.poll(10, TimeUnit.SECONDS);
            if (e == null) throw new AssertionError("nothing heard in 10 s");
            return e;
        }
    }
}
