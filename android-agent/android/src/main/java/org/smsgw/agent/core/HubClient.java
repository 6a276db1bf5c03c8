package org.smsgw.agent.core;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * The WebSocket link to the hub (PROTOCOL.md §2), as the Node agent's HubConnection does it:
 * connects, writes each offered SMS to the outbox before acknowledging it, sends reports until the
 * hub acknowledges them (again after each hello, and every 10 s on the same connection), honours
 * {@code reconnect}, reconnects with backoff and full jitter, and drops a connection whose pings
 * stopped. Every method runs on the event loop; the transport's callbacks are posted to it.
 */
public final class HubClient {
    public enum State { CONNECTING, CONNECTED, WAITING, STOPPED }

    /** Why the client stopped by itself: the user must act. */
    public enum Fatal { UNAUTHORIZED, REPLACED }

    public interface Listener {
        /** {@code detail}: the last error, or when the next attempt is due. */
        void onState(State state, String detail);

        /** A new SMS is in the outbox and acknowledged: send it. */
        void onAccepted(Sms sms);

        void onFatal(Fatal fatal, String message);

        /** The phone's SIMs for {@code agent_hello} (protocol 4), read at each hello; null when unknown. */
        List<Sim> sims();
    }

    public static final long REPORT_RESEND_MS = 10000;
    static final long DEFAULT_PING_INTERVAL_MS = 25000;
    // The hub drops a connection after two missed pongs; the client waits as long for pings
    // (plus a margin) before it deems a silent connection dead.
    static final int MISSED_PINGS = 2;
    static final long PING_MARGIN_MS = 5000;
    /** After a network change, a connection that does not answer a ping within this is dropped. */
    static final long PROBE_TIMEOUT_MS = 10000;
    /** The longest wait a hub's {@code received_retry} may ask for: a bad value never holds the inbox back for long. */
    static final long MAX_RECEIVED_HOLD_MS = 3600000;

    private final String wsUrl;
    private final String token;
    private final Transport transport;
    private final Outbox outbox;
    private final EventLoop loop;
    private final Clock clock;
    private final Random random;
    private final Logger log;
    private final Listener listener;
    private final long reportResendMs;

    private Transport.Connection conn;
    private boolean ready;
    private boolean stopped = true;
    private int attempt;
    private long pingIntervalMs = DEFAULT_PING_INTERVAL_MS;
    private long hubDelayMs = -1;
    private final Map<String, Long> lastSent = new HashMap<String, Long>();
    /** Received SMS until received_ack (protocol 3); null: this client relays none. */
    private Inbox inbox;
    /** Protocol 6; null: this client sends no telemetry. */
    private PhoneLink phone;
    /** When each pending received SMS was last sent on the current connection. */
    private final Map<String, Long> receivedSent = new HashMap<String, Long>();
    /** Protocol 5: no received SMS is sent before this time (the hub said the phone is past its budget). */
    private long receivedHeldUntil;
    private EventLoop.Timer holdTimer;
    private EventLoop.Timer reconnectTimer;
    private EventLoop.Timer stableTimer;
    private EventLoop.Timer watchdogTimer;
    private EventLoop.Timer resendTimer;
    private EventLoop.Timer probeTimer;
    private EventLoop.Timer digestTimer;
    /** What the phone did with each SMS (protocol 7); null: no digest is sent. */
    private SendRecord record;
    private long digestIntervalMs = Digest.INTERVAL_MS;

    public HubClient(String wsUrl, String token, Transport transport, Outbox outbox, EventLoop loop, Clock clock,
            Random random, Logger log, Listener listener, long reportResendMs) {
        this.wsUrl = wsUrl;
        this.token = token;
        this.transport = transport;
        this.outbox = outbox;
        this.loop = loop;
        this.clock = clock;
        this.random = random;
        this.log = log;
        this.listener = listener;
        this.reportResendMs = reportResendMs;
    }

    /** Sends the digest of this record to a hub of protocol 7 after each hello and every {@code intervalMs}; call before {@link #start()}. */
    public void useRecord(SendRecord record, long intervalMs) {
        this.record = record;
        this.digestIntervalMs = intervalMs;
    }

    /** Protocol 6: telemetry, the log on request, the pushed settings; call before {@link #start()}. */
    public void usePhone(PhoneLink phone) {
        this.phone = phone;
    }

    /** Relays this inbox's SMS (protocol 3); call before {@link #start()}, on the loop. */
    public void useInbox(Inbox inbox) {
        this.inbox = inbox;
    }

    /**
     * The inbox has a new SMS (call on the loop): it goes now if the hub is listening, else after
     * the next hello. Entries already sent on this connection wait for their resend time.
     */
    public void receivedChanged() {
        if (!ready || conn == null || inbox == null || receivedHeld()) return;
        for (ReceivedSms sms : inbox.pending()) {
            if (!receivedSent.containsKey(sms.receivedId)) sendReceived(sms);
        }
    }

    private boolean receivedHeld() {
        return clock.now() < receivedHeldUntil;
    }

    /**
     * Protocol 5: the hub did not store a received SMS (the phone or its account is past its budget):
     * every received SMS waits {@code afterMs} (at most an hour), then all go again.
     */
    private void holdReceived(String receivedId, long afterMs) {
        long waitMs = Math.min(Math.max(0, afterMs), MAX_RECEIVED_HOLD_MS);
        receivedHeldUntil = Math.max(receivedHeldUntil, clock.now() + waitMs);
        long left = receivedHeldUntil - clock.now();
        log.info("the hub asked to send received SMS again in " + left + " ms (" + receivedId + ")");
        cancel(holdTimer);
        final long endsAt = receivedHeldUntil;
        holdTimer = loop.schedule(new Runnable() {
            @Override
            public void run() {
                holdTimer = null;
                if (!ready || conn == null || inbox == null || receivedHeld()) return;
                // What the resend timer sent at the hold's very end is not sent twice.
                for (ReceivedSms sms : inbox.pending()) {
                    Long last = receivedSent.get(sms.receivedId);
                    if (last == null || last < endsAt) sendReceived(sms);
                }
            }
        }, left);
    }

    private void sendReceived(ReceivedSms sms) {
        conn.send(Protocol.received(sms));
        receivedSent.put(sms.receivedId, clock.now());
    }

    public void start() {
        stopped = false;
        attempt = 0;
        connect();
    }

    /** Closes the connection (1000) and stops reconnecting. */
    public void stop() {
        if (stopped) return;
        stopped = true;
        cancel(reconnectTimer);
        if (conn != null) {
            conn.close(1000, "agent stopping");
        } else {
            listener.onState(State.STOPPED, "");
        }
    }

    public boolean isConnected() {
        return ready && conn != null;
    }

    /** Sends a report now if the hub is listening; otherwise it goes after the next hello. */
    public void sendReport(Report report) {
        if (!ready || conn == null) return;
        conn.send(Protocol.report(report));
        lastSent.put(key(report.messageId, report.status), clock.now());
    }

    /**
     * The phone changed network: a client waiting to reconnect tries at once; a connected one
     * checks with a ping that its socket survived, since the old network's socket often dies
     * without a word.
     */
    public void networkChanged() {
        if (stopped) return;
        if (conn == null) {
            cancel(reconnectTimer);
            log.info("network changed: reconnecting now");
            connect();
        } else if (ready && probeTimer == null) {
            final Transport.Connection probed = conn;
            probed.ping();
            probeTimer = loop.schedule(new Runnable() {
                @Override
                public void run() {
                    probeTimer = null;
                    if (probed == conn) {
                        log.info("no answer after a network change; dropping the connection");
                        probed.abort();
                    }
                }
            }, PROBE_TIMEOUT_MS);
        }
    }

    private void connect() {
        reconnectTimer = null;
        if (stopped) return;
        listener.onState(State.CONNECTING, "");
        conn = transport.connect(wsUrl, token, new Transport.Listener() {
            @Override
            public void onOpen(final Transport.Connection c) {
                post(new Runnable() {
                    @Override
                    public void run() {
                        if (c == conn) onOpened(c);
                    }
                });
            }

            @Override
            public void onText(final Transport.Connection c, final String text) {
                post(new Runnable() {
                    @Override
                    public void run() {
                        if (c != conn || stopped) return;
                        heard(c);
                        onFrame(c, Protocol.parse(text));
                    }
                });
            }

            @Override
            public void onPing(final Transport.Connection c) {
                post(new Runnable() {
                    @Override
                    public void run() {
                        if (c == conn) heard(c);
                    }
                });
            }

            @Override
            public void onPong(final Transport.Connection c) {
                onPing(c);
            }

            @Override
            public void onClosed(final Transport.Connection c, final int code, final String reason, final int httpStatus) {
                post(new Runnable() {
                    @Override
                    public void run() {
                        onConnectionClosed(c, code, reason, httpStatus);
                    }
                });
            }
        });
    }

    private void post(Runnable task) {
        loop.post(task);
    }

    private void onOpened(final Transport.Connection c) {
        log.info("connected to the hub");
        stableTimer = loop.schedule(new Runnable() {
            @Override
            public void run() {
                attempt = 0;
            }
        }, Backoff.STABLE_CONNECTION_MS);
        armWatchdog(c);
    }

    /** Any sign of life from the hub. */
    private void heard(Transport.Connection c) {
        armWatchdog(c);
        if (probeTimer != null) {
            probeTimer.cancel();
            probeTimer = null;
        }
    }

    private void onFrame(Transport.Connection c, HubFrame frame) {
        switch (frame.kind) {
            case HELLO:
                onHello(c, frame);
                break;
            case SMS:
                onSms(c, frame);
                break;
            case REPORT_ACK:
                outbox.ackReport(frame.messageId, frame.status);
                lastSent.remove(key(frame.messageId, frame.status));
                break;
            case RECEIVED_ACK:
                if (inbox != null) {
                    try {
                        inbox.ack(frame.messageId);
                    } catch (RuntimeException e) {
                        // Kept: it goes again and the hub de-duplicates it.
                        log.warn("could not forget the acknowledged received SMS " + frame.messageId, e);
                    }
                }
                receivedSent.remove(frame.messageId);
                break;
            case RECEIVED_RETRY:
                holdReceived(frame.messageId, frame.afterMs);
                break;
            case LOG_REQUEST:
                if (phone != null) phone.onLogRequest();
                break;
            case SETTINGS:
                if (phone != null) phone.onSettings(frame.messageId, frame.status);
                break;
            case RECONNECT:
                log.info("the hub asked to reconnect after " + frame.afterMs + " ms");
                hubDelayMs = frame.afterMs;
                c.close(1000, "reconnecting as asked");
                break;
            case UNKNOWN:
                // Forward compatibility: a newer hub may send types this agent does not know.
                break;
            default:
                log.warn("ignoring an invalid frame: " + frame.detail, null);
                break;
        }
    }

    private void onHello(Transport.Connection c, HubFrame hello) {
        ready = true;
        pingIntervalMs = hello.pingIntervalMs > 0 ? hello.pingIntervalMs : DEFAULT_PING_INTERVAL_MS;
        armWatchdog(c);
        if (!Protocol.isSupported(hello.protocol)) {
            // Carry on: unknown frames and fields are ignored both ways, so a newer hub can still work with us.
            log.warn("the hub speaks protocol " + hello.protocol + ", this app " + Protocol.VERSION, null);
        }
        listener.onState(State.CONNECTED, "");
        // Protocol 3: the hub learns this agent's version and driver; 4: its SIMs, read now since SIMs come and go.
        c.send(Protocol.agentHello(listener.sims()));
        // Reports and received SMS not acknowledged on an earlier connection (or before a restart) go again now.
        lastSent.clear();
        for (Report r : outbox.pendingReports()) sendReport(r);
        receivedSent.clear();
        receivedChanged();
        cancel(resendTimer);
        scheduleResend(c);
        if (phone != null) phone.open(c, hello.protocol);
        // Protocol 7: what the phone did, for the hub to repair what a lost frame left wrong.
        cancel(digestTimer);
        if (record != null && hello.protocol >= Protocol.DIGEST_VERSION) sendDigest(c);
    }

    private void sendDigest(final Transport.Connection c) {
        if (c != conn || !ready) return;
        long now = clock.now();
        String digestId = Long.toHexString(random.nextLong()) + Long.toHexString(now);
        for (String frame : Digest.frames(record.list(), record.coversFrom(), now, Digest.CHUNK_ENTRIES, digestId)) c.send(frame);
        digestTimer = loop.schedule(new Runnable() {
            @Override
            public void run() {
                sendDigest(c);
            }
        }, digestIntervalMs);
    }

    private void scheduleResend(final Transport.Connection c) {
        resendTimer = loop.schedule(new Runnable() {
            @Override
            public void run() {
                if (c != conn || !ready) return;
                long now = clock.now();
                for (Report r : outbox.pendingReports()) {
                    Long last = lastSent.get(key(r.messageId, r.status));
                    if (last == null || now - last >= reportResendMs) sendReport(r);
                }
                if (inbox != null && !receivedHeld()) {
                    for (ReceivedSms sms : inbox.pending()) {
                        Long last = receivedSent.get(sms.receivedId);
                        if (last == null || now - last >= reportResendMs) sendReceived(sms);
                    }
                }
                scheduleResend(c);
            }
        }, Math.max(1, reportResendMs / 2));
    }

    /** Outbox before ack (PROTOCOL.md §3); an SMS already known is acknowledged, never sent again. */
    private void onSms(Transport.Connection c, HubFrame frame) {
        Sms sms = frame.sms;
        boolean created;
        try {
            created = outbox.accept(sms);
        } catch (RuntimeException e) {
            // No ack: the lease runs out and the hub offers the SMS again.
            log.warn("could not write " + sms.messageId + " to the outbox", e);
            return;
        }
        c.send(Protocol.ack(sms.messageId, sms.traceparent));
        if (created) {
            log.info(sms.messageId + " accepted (attempt " + frame.attempt + ")");
            listener.onAccepted(sms);
        } else {
            log.info(sms.messageId + " offered again: acknowledged, not sent again");
        }
    }

    private void onConnectionClosed(Transport.Connection c, int code, String reason, int httpStatus) {
        if (c != conn) return;
        conn = null;
        ready = false;
        if (phone != null) phone.close();
        cancel(stableTimer);
        cancel(watchdogTimer);
        cancel(resendTimer);
        cancel(digestTimer);
        cancel(probeTimer);
        probeTimer = null;
        if (stopped) {
            listener.onState(State.STOPPED, "");
            return;
        }
        if (httpStatus == 401) {
            stopped = true;
            listener.onFatal(Fatal.UNAUTHORIZED, "the hub refused this phone's token (401): pair it again");
            listener.onState(State.STOPPED, "token refused");
            return;
        }
        if (code == Protocol.CLOSE_REPLACED) {
            // Reconnecting would take the device back from the other connection, which would do
            // the same: two agents would keep replacing each other.
            stopped = true;
            listener.onFatal(Fatal.REPLACED, "another connection of this phone took over (close code 4002)");
            listener.onState(State.STOPPED, "replaced by another connection");
            return;
        }
        long delay = hubDelayMs >= 0 ? hubDelayMs : Backoff.delayMs(attempt++, random);
        hubDelayMs = -1;
        String why = httpStatus != 0 ? "HTTP " + httpStatus + ": " + reason : "closed " + code + (reason.isEmpty() ? "" : ": " + reason);
        log.info("disconnected from the hub (" + why + "); reconnecting in " + delay + " ms");
        listener.onState(State.WAITING, why);
        reconnectTimer = loop.schedule(new Runnable() {
            @Override
            public void run() {
                connect();
            }
        }, delay);
    }

    private void armWatchdog(final Transport.Connection c) {
        cancel(watchdogTimer);
        watchdogTimer = loop.schedule(new Runnable() {
            @Override
            public void run() {
                if (c != conn) return;
                log.info("no ping from the hub; dropping the connection");
                c.abort();
            }
        }, pingIntervalMs * MISSED_PINGS + PING_MARGIN_MS);
    }

    private static void cancel(EventLoop.Timer timer) {
        if (timer != null) timer.cancel();
    }

    private static String key(String messageId, String status) {
        return messageId + " " + status;
    }
}
