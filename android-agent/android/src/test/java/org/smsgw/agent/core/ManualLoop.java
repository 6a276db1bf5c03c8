package org.smsgw.agent.core;

import java.util.ArrayList;
import java.util.List;

/** An event loop and clock with virtual time: tasks run when the test says, timers when time moves. */
public final class ManualLoop implements EventLoop, Clock {
    private final class Task implements Timer {
        final Runnable run;
        final long due;
        final long order;
        boolean cancelled;

        Task(Runnable run, long due, long order) {
            this.run = run;
            this.due = due;
            this.order = order;
        }

        @Override
        public void cancel() {
            cancelled = true;
        }
    }

    private final List<Task> tasks = new ArrayList<Task>();
    private long now = 1700000000000L;
    private long order;

    @Override
    public synchronized long now() {
        return now;
    }

    @Override
    public synchronized void post(Runnable task) {
        tasks.add(new Task(task, now, order++));
    }

    @Override
    public synchronized Timer schedule(Runnable task, long delayMs) {
        Task t = new Task(task, now + Math.max(0, delayMs), order++);
        tasks.add(t);
        return t;
    }

    /** Runs every task due now, including the ones they post. */
    public void runDue() {
        while (true) {
            Task next;
            synchronized (this) {
                next = null;
                for (Task t : tasks) {
                    if (t.cancelled || t.due > now) continue;
                    if (next == null || t.due < next.due || (t.due == next.due && t.order < next.order)) next = t;
                }
                if (next == null) {
                    removeCancelled();
                    return;
                }
                tasks.remove(next);
            }
            next.run.run();
        }
    }

    /** Moves time forward, running timers in order as they fall due. */
    public void advance(long ms) {
        long end;
        synchronized (this) {
            end = now + ms;
        }
        while (true) {
            runDue();
            Task next = null;
            synchronized (this) {
                for (Task t : tasks) {
                    if (!t.cancelled && t.due <= end && (next == null || t.due < next.due)) next = t;
                }
                if (next == null) {
                    now = end;
                    break;
                }
                now = next.due;
            }
        }
        runDue();
    }

    /** Delays of the pending timers, from now. */
    public synchronized List<Long> pendingDelays() {
        List<Long> delays = new ArrayList<Long>();
        for (Task t : tasks) {
            if (!t.cancelled) delays.add(t.due - now);
        }
        return delays;
    }

    private void removeCancelled() {
        for (int i = tasks.size() - 1; i >= 0; i--) {
            if (tasks.get(i).cancelled) tasks.remove(i);
        }
    }
}
