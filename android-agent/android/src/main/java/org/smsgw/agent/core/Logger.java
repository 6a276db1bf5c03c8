package org.smsgw.agent.core;

/**
 * Where the core logs: android.util.Log in the app, stderr on the JVM. Messages carry message
 * ids, never phone numbers, texts or tokens.
 */
public interface Logger {
    void info(String message);

    void warn(String message, Throwable error);

    Logger STDERR = new Logger() {
        @Override
        public void info(String message) {
            System.err.println("[agent] " + message);
        }

        @Override
        public void warn(String message, Throwable error) {
            System.err.println("[agent] WARN " + message + (error == null ? "" : ": " + error));
        }
    };
}
