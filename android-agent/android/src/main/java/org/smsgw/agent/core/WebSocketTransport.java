package org.smsgw.agent.core;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.Charset;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import javax.net.ssl.SSLSocket;

/**
 * A WebSocket client (RFC 6455) on plain sockets, enough for the protocol: the upgrade with a
 * bearer token and the subprotocol, masked text frames out, text frames in (fragments joined),
 * pings answered, the close handshake. OkHttp would do it, but Debian's build of it needs lambdas
 * that dx refuses. One reader thread per connection; writes are serialised.
 */
public final class WebSocketTransport implements Transport {
    static final String GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
    static final int MAX_MESSAGE_BYTES = 1024 * 1024;
    private static final Charset UTF8 = Charset.forName("UTF-8");
    private static final Charset ASCII = Charset.forName("US-ASCII");

    private final Tls tls;
    private final String userAgent;
    private final int connectTimeoutMs;
    private final SecureRandom random = new SecureRandom();

    /** {@code tls} may be null when only ws:// URLs are used (the tests' local servers). */
    public WebSocketTransport(Tls tls, String userAgent, int connectTimeoutMs) {
        this.tls = tls;
        this.userAgent = userAgent;
        this.connectTimeoutMs = connectTimeoutMs;
    }

    @Override
    public Connection connect(String url, String token, Listener listener) {
        WsConnection c = new WsConnection(URI.create(url), token, listener);
        Thread t = new Thread(c, "smsgw-websocket");
        t.setDaemon(true);
        t.start();
        return c;
    }

    static String acceptOf(String key) {
        try {
            MessageDigest sha1 = MessageDigest.getInstance("SHA-1");
            return Base64.encode(sha1.digest((key + GUID).getBytes(ASCII)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The upgrade was answered with something else than 101. */
    private static final class Refused extends IOException {
        final int status;

        Refused(int status, String why) {
            super(why);
            this.status = status;
        }
    }

    private final class WsConnection implements Connection, Runnable {
        private final URI uri;
        private final String token;
        private final Listener listener;
        private final Object writeLock = new Object();
        private volatile Socket socket;
        private volatile OutputStream out;
        private volatile boolean aborted;
        private boolean closeSent; // under writeLock

        WsConnection(URI uri, String token, Listener listener) {
            this.uri = uri;
            this.token = token;
            this.listener = listener;
        }

        @Override
        public void run() {
            int code = 1006;
            String reason = "";
            int status = 0;
            try {
                InputStream in = open();
                listener.onOpen(this);
                int[] closing = readFrames(in);
                code = closing[0];
                reason = lastCloseReason;
            } catch (Refused e) {
                status = e.status;
                reason = e.getMessage();
            } catch (IOException e) {
                reason = aborted ? "aborted" : String.valueOf(e.getMessage());
            } catch (RuntimeException e) {
                reason = e.toString();
            } finally {
                closeQuietly();
                listener.onClosed(this, code, reason, status);
            }
        }

        private String lastCloseReason = "";

        private InputStream open() throws IOException {
            boolean secure = "wss".equalsIgnoreCase(uri.getScheme());
            if (!secure && !"ws".equalsIgnoreCase(uri.getScheme())) throw new IOException("not a ws or wss URL: " + uri);
            String host = uri.getHost();
            int port = uri.getPort() > 0 ? uri.getPort() : (secure ? 443 : 80);
            Socket plain = new Socket();
            socket = plain;
            if (aborted) throw new IOException("aborted");
            plain.connect(new InetSocketAddress(host, port), connectTimeoutMs);
            plain.setSoTimeout(connectTimeoutMs);
            plain.setTcpNoDelay(true);
            Socket s = plain;
            if (secure) {
                if (tls == null) throw new IOException("no TLS settings for " + uri);
                String bare = host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
                SSLSocket ssl = (SSLSocket) tls.socketFactory().createSocket(plain, bare, port, true);
                socket = ssl;
                ssl.startHandshake();
                Tls.checkHostname(bare, ssl.getSession());
                s = ssl;
            }
            out = s.getOutputStream();
            InputStream in = new BufferedInputStream(s.getInputStream());
            handshake(in, host, port, secure);
            // From here on silence is the hub's business: the hub connection's watchdog decides.
            s.setSoTimeout(0);
            return in;
        }

        private void handshake(InputStream in, String host, int port, boolean secure) throws IOException {
            byte[] nonce = new byte[16];
            random.nextBytes(nonce);
            String key = Base64.encode(nonce);
            String path = uri.getRawPath() == null || uri.getRawPath().isEmpty() ? "/" : uri.getRawPath();
            if (uri.getRawQuery() != null) path += "?" + uri.getRawQuery();
            boolean defaultPort = port == (secure ? 443 : 80);
            StringBuilder req = new StringBuilder()
                    .append("GET ").append(path).append(" HTTP/1.1\r\n")
                    .append("Host: ").append(host).append(defaultPort ? "" : ":" + port).append("\r\n")
                    .append("Upgrade: websocket\r\n")
                    .append("Connection: Upgrade\r\n")
                    .append("Sec-WebSocket-Key: ").append(key).append("\r\n")
                    .append("Sec-WebSocket-Version: 13\r\n")
                    .append("Sec-WebSocket-Protocol: ").append(Protocol.SUBPROTOCOL).append("\r\n")
                    .append("User-Agent: ").append(userAgent).append("\r\n");
            if (token != null) req.append("Authorization: Bearer ").append(token).append("\r\n");
            req.append("\r\n");
            synchronized (writeLock) {
                out.write(req.toString().getBytes(UTF8));
                out.flush();
            }
            String statusLine = readLine(in);
            String[] parts = statusLine.split(" ", 3);
            int status;
            try {
                status = parts.length >= 2 ? Integer.parseInt(parts[1]) : 0;
            } catch (NumberFormatException e) {
                status = 0;
            }
            Map<String, String> headers = new HashMap<String, String>();
            for (String line = readLine(in); !line.isEmpty(); line = readLine(in)) {
                int colon = line.indexOf(':');
                if (colon > 0) headers.put(line.substring(0, colon).trim().toLowerCase(Locale.ROOT), line.substring(colon + 1).trim());
            }
            if (status != 101) throw new Refused(status == 0 ? -1 : status, "the hub answered " + statusLine);
            if (!"websocket".equalsIgnoreCase(headers.get("upgrade"))
                    || !acceptOf(key).equals(headers.get("sec-websocket-accept"))) {
                throw new Refused(-1, "not a WebSocket upgrade");
            }
            if (!Protocol.SUBPROTOCOL.equals(headers.get("sec-websocket-protocol"))) {
                throw new Refused(-1, "the hub did not accept subprotocol " + Protocol.SUBPROTOCOL);
            }
        }

        /** Reads until the connection ends; returns {close code}. */
        private int[] readFrames(InputStream in) throws IOException {
            ByteArrayOutputStream message = null;
            boolean messageIsText = false;
            while (true) {
                int b0 = readByte(in);
                int b1 = readByte(in);
                boolean fin = (b0 & 0x80) != 0;
                int opcode = b0 & 0x0f;
                if ((b0 & 0x70) != 0 || (b1 & 0x80) != 0) return fail(1002, "reserved bits or a masked frame from the hub");
                long length = b1 & 0x7f;
                if (length == 126) {
                    length = (readByte(in) << 8) | readByte(in);
                } else if (length == 127) {
                    length = 0;
                    for (int i = 0; i < 8; i++) length = (length << 8) | readByte(in);
                }
                if (opcode >= 0x8 && (length > 125 || !fin)) return fail(1002, "malformed control frame");
                long buffered = message == null ? 0 : message.size();
                if (length < 0 || buffered + length > MAX_MESSAGE_BYTES) return fail(1009, "message too big");
                byte[] payload = readFully(in, (int) length);
                switch (opcode) {
                    case 0x0:
                        if (message == null) return fail(1002, "continuation without a message");
                        message.write(payload, 0, payload.length);
                        break;
                    case 0x1:
                    case 0x2:
                        if (message != null) return fail(1002, "new message inside a fragmented one");
                        message = new ByteArrayOutputStream();
                        message.write(payload, 0, payload.length);
                        messageIsText = opcode == 0x1;
                        break;
                    case 0x8:
                        int code = payload.length >= 2 ? ((payload[0] & 0xff) << 8) | (payload[1] & 0xff) : 1005;
                        lastCloseReason = payload.length > 2 ? new String(payload, 2, payload.length - 2, UTF8) : "";
                        // Echo the close once; the hub then closes the TCP connection.
                        writeClose(payload.length >= 2 ? code : 1000, "");
                        return new int[] {code};
                    case 0x9:
                        writeFrame(0xA, payload);
                        listener.onPing(this);
                        break;
                    case 0xA:
                        listener.onPong(this);
                        break;
                    default:
                        return fail(1002, "unknown opcode " + opcode);
                }
                if (fin && opcode < 0x8 && message != null) {
                    // Binary messages are not part of the protocol: read and dropped.
                    if (messageIsText) listener.onText(this, new String(message.toByteArray(), UTF8));
                    message = null;
                }
            }
        }

        private int[] fail(int code, String why) {
            lastCloseReason = why;
            writeClose(code, why);
            return new int[] {code};
        }

        @Override
        public void send(String text) {
            writeFrame(0x1, text.getBytes(UTF8));
        }

        @Override
        public void ping() {
            writeFrame(0x9, new byte[0]);
        }

        @Override
        public void close(int code, String reason) {
            writeClose(code, reason);
            Socket s = socket;
            try {
                // The reader ends when the hub answers, or at this timeout.
                if (s != null) s.setSoTimeout(2000);
            } catch (IOException e) {
                abort();
            }
        }

        @Override
        public void abort() {
            aborted = true;
            closeQuietly();
        }

        private void writeClose(int code, String reason) {
            synchronized (writeLock) {
                if (closeSent) return;
                closeSent = true;
                byte[] r = reason.getBytes(UTF8);
                int n = Math.min(r.length, 123);
                byte[] payload = new byte[2 + n];
                payload[0] = (byte) (code >> 8);
                payload[1] = (byte) code;
                System.arraycopy(r, 0, payload, 2, n);
                writeFrameLocked(0x8, payload);
            }
        }

        private void writeFrame(int opcode, byte[] payload) {
            synchronized (writeLock) {
                // Nothing may follow a close frame (RFC 6455 §5.5.1).
                if (closeSent) return;
                writeFrameLocked(opcode, payload);
            }
        }

        private void writeFrameLocked(int opcode, byte[] payload) {
            OutputStream o = out;
            if (o == null) return;
            int n = payload.length;
            ByteArrayOutputStream frame = new ByteArrayOutputStream(n + 14);
            frame.write(0x80 | opcode);
            if (n < 126) {
                frame.write(0x80 | n);
            } else if (n < 65536) {
                frame.write(0x80 | 126);
                frame.write(n >> 8);
                frame.write(n);
            } else {
                frame.write(0x80 | 127);
                for (int i = 7; i >= 0; i--) frame.write((int) ((long) n >> (8 * i)));
            }
            byte[] mask = new byte[4];
            random.nextBytes(mask);
            frame.write(mask, 0, 4);
            for (int i = 0; i < n; i++) frame.write(payload[i] ^ mask[i & 3]);
            try {
                o.write(frame.toByteArray());
                o.flush();
            } catch (IOException e) {
                // The reader sees the broken connection and reports it.
                closeQuietly();
            }
        }

        private void closeQuietly() {
            Socket s = socket;
            if (s == null) return;
            try {
                s.close();
            } catch (IOException ignored) {
                // already closed
            }
        }
    }

    private static int readByte(InputStream in) throws IOException {
        int b = in.read();
        if (b < 0) throw new IOException("connection closed by the hub");
        return b;
    }

    private static byte[] readFully(InputStream in, int n) throws IOException {
        byte[] buffer = new byte[n];
        int read = 0;
        while (read < n) {
            int r = in.read(buffer, read, n - read);
            if (r < 0) throw new IOException("connection closed by the hub");
            read += r;
        }
        return buffer;
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        while (true) {
            int b;
            try {
                b = in.read();
            } catch (SocketTimeoutException e) {
                throw new IOException("the hub did not answer the upgrade in time");
            }
            if (b < 0) throw new IOException("connection closed during the upgrade");
            if (b == '\n') break;
            if (b != '\r') line.append((char) b);
            if (line.length() > 8192) throw new IOException("upgrade answer too long");
        }
        return line.toString();
    }
}
