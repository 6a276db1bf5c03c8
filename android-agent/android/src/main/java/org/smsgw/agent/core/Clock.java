package org.smsgw.agent.core;

/** Wall-clock time in epoch milliseconds; tests move it by hand. */
public interface Clock {
    long now();

    Clock SYSTEM = new Clock() {
        @Override
        public long now() {
            return System.currentTimeMillis();
        }
    };
}
