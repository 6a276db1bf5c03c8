package org.smsgw.agent.core;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/** The event loop on one daemon thread, for the app and the JVM harness. */
public final class ExecutorEventLoop implements EventLoop {
    private final ScheduledThreadPoolExecutor executor;
    private final Logger log;

    public ExecutorEventLoop(final String name, Logger log) {
        this.log = log;
        this.executor = new ScheduledThreadPoolExecutor(1, new ThreadFactory() {
            @Override
            public Thread newThread(Runnable r) {
                Thread t = new Thread(r, name);
                t.setDaemon(true);
                return t;
            }
        });
        // Cancelled timers (report resends, watchdogs) would otherwise stay queued until due.
        executor.setRemoveOnCancelPolicy(true);
        // After shutdown, a reconnection timer must not bring the connection back.
        executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    }

    @Override
    public void post(Runnable task) {
        try {
            executor.execute(guarded(task));
        } catch (RejectedExecutionException e) {
            // Shut down: the socket's last callbacks have nobody left to tell.
        }
    }

    @Override
    public Timer schedule(Runnable task, long delayMs) {
        final ScheduledFuture<?> future;
        try {
            future = executor.schedule(guarded(task), Math.max(0, delayMs), TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            return new Timer() {
                @Override
                public void cancel() {
                }
            };
        }
        return new Timer() {
            @Override
            public void cancel() {
                future.cancel(false);
            }
        };
    }

    /** Stops the thread after the tasks already posted; later posts are dropped. */
    public void shutdown() {
        executor.shutdown();
    }

    public boolean awaitTermination(long ms) throws InterruptedException {
        return executor.awaitTermination(ms, TimeUnit.MILLISECONDS);
    }

    private Runnable guarded(final Runnable task) {
        return new Runnable() {
            @Override
            public void run() {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    // One failing task must not end the thread every later task needs.
                    log.warn("a task of the agent failed", e);
                }
            }
        };
    }
}
