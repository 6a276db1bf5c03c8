package org.smsgw.agent.core;

import java.util.ArrayList;
import java.util.List;

/** A transport whose connections the test opens, feeds and closes by hand. */
final class FakeTransport implements Transport {
    final class Conn implements Connection {
        final String url;
        final String token;
        final Listener listener;
        final List<String> sent = new ArrayList<String>();
        int pings;
        boolean closed;
        boolean aborted;
        int closeCode;

        Conn(String url, String token, Listener listener) {
            this.url = url;
            this.token = token;
            this.listener = listener;
        }

        @Override
        public void send(String text) {
            if (!closed) sent.add(text);
        }

        @Override
        public void ping() {
            pings++;
        }

        @Override
        public void close(int code, String reason) {
            closeCode = code;
            closed = true;
        }

        @Override
        public void abort() {
            aborted = true;
            closed = true;
        }

        void open() {
            listener.onOpen(this);
        }

        void hear(String frame) {
            listener.onText(this, frame);
        }

        void end(int code, int httpStatus) {
            closed = true;
            listener.onClosed(this, code, "", httpStatus);
        }

        List<String> sentOfType(String type) {
            List<String> out = new ArrayList<String>();
            for (String s : sent) {
                if (s.contains("\"type\":\"" + type + "\"")) out.add(s);
            }
            return out;
        }
    }

    final List<Conn> connections = new ArrayList<Conn>();

    @Override
    public Connection connect(String url, String token, Listener listener) {
        Conn c = new Conn(url, token, listener);
        connections.add(c);
        return c;
    }

    Conn last() {
        return connections.get(connections.size() - 1);
    }
}
