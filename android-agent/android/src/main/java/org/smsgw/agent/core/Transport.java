package org.smsgw.agent.core;

/** How the hub connection reaches the hub: {@link WebSocketTransport}, or a fake in the tests. */
public interface Transport {
    /** Starts connecting at once and returns; the listener hears the rest, from another thread. */
    Connection connect(String url, String token, Listener listener);

    interface Connection {
        void send(String text);

        void ping();

        /** The close handshake; the connection ends (onClosed) when the hub answers or after a short wait. */
        void close(int code, String reason);

        /** Drops the connection without a handshake. */
        void abort();
    }

    interface Listener {
        void onOpen(Connection connection);

        void onText(Connection connection, String text);

        void onPing(Connection connection);

        void onPong(Connection connection);

        /**
         * Called once, last. {@code httpStatus} is the hub's answer when it refused the upgrade
         * (401 for a bad token), 0 otherwise; {@code code} is the close code (1006: no close frame).
         */
        void onClosed(Connection connection, int code, String reason, int httpStatus);
    }
}
