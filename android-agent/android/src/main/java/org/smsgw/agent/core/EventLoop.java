package org.smsgw.agent.core;

/**
 * The one thread the agent's state lives on: the connection, the send queue and their timers
 * all run here, so none of them needs a lock. Tests drive a manual loop with virtual time.
 */
public interface EventLoop {
    void post(Runnable task);

    Timer schedule(Runnable task, long delayMs);

    interface Timer {
        void cancel();
    }
}
