package org.smsgw.agent.core;

import java.util.List;
import java.util.Random;

/**
 * The agent of one paired phone: the hub connection, the outbox and the sender put together.
 * The foreground service (and the JVM harness) builds one, starts it, and feeds it network
 * changes; Android's sent and delivery reports go straight to the outbox ({@link SmsResults}),
 * whose listener brings the reports here.
 */
public final class Agent {
    /** What the persistent notification shows. */
    public static final class Status {
        public final HubClient.State state;
        public final int queued;
        public final String lastSmsId;
        public final String lastSmsStatus;
        public final long lastSmsAt;
        public final String lastError;
        public final long lastErrorAt;

        Status(HubClient.State state, int queued, String lastSmsId, String lastSmsStatus, long lastSmsAt, String lastError,
                long lastErrorAt) {
            this.state = state;
            this.queued = queued;
            this.lastSmsId = lastSmsId;
            this.lastSmsStatus = lastSmsStatus;
            this.lastSmsAt = lastSmsAt;
            this.lastError = lastError;
            this.lastErrorAt = lastErrorAt;
        }
    }

    public interface Listener {
        /** On the event loop; often, so a listener that draws should throttle. */
        void onStatus(Status status);

        /** The agent stopped by itself: the user must pair again (UNAUTHORIZED) or check the other phone (REPLACED). */
        void onFatal(HubClient.Fatal fatal, String message);
    }

    static final long SWEEP_INTERVAL_MS = 60000;

    private final Inbox inbox;
    private final Outbox outbox;
    private final SmsSender sender;
    /** Protocol 8: the owner's end-to-end passphrase, null when none is set; it never leaves the phone. */
    private volatile String passphrase;
    private final EventLoop loop;
    private final Clock clock;
    private final Logger log;
    private final Listener listener;
    private final HubClient hub;

    private HubClient.State state = HubClient.State.STOPPED;
    private String lastSmsId;
    private String lastSmsStatus;
    private long lastSmsAt;
    private String lastError;
    private long lastErrorAt;
    private boolean running;
    private EventLoop.Timer sweepTimer;

    public Agent(Credentials credentials, Outbox outbox, SmsSender sender, Transport transport, EventLoop loop, Clock clock,
            Random random, Logger log, Listener listener, long reportResendMs) {
        this(credentials, outbox, null, sender, transport, loop, clock, random, log, listener, reportResendMs);
    }

    /** With an inbox: received SMS are relayed to the hub (protocol 3). */
    public Agent(Credentials credentials, Outbox outbox, Inbox inbox, SmsSender sender, Transport transport, EventLoop loop,
            Clock clock, Random random, Logger log, Listener listener, long reportResendMs) {
        this.outbox = outbox;
        this.inbox = inbox;
        this.sender = sender;
        this.loop = loop;
        this.clock = clock;
        this.log = log;
        this.listener = listener;
        this.hub = new HubClient(credentials.wsUrl, credentials.deviceToken, transport, outbox, loop, clock, random, log,
                new HubClient.Listener() {
                    @Override
                    public void onState(HubClient.State s, String detail) {
                        state = s;
                        if (s == HubClient.State.WAITING && !detail.isEmpty()) error(detail);
                        publish();
                    }

                    @Override
                    public void onAccepted(Sms sms) {
                        handOver(sms);
                    }

                    @Override
                    public void onFatal(HubClient.Fatal fatal, String message) {
                        error(message);
                        stopOnLoop();
                        Agent.this.listener.onFatal(fatal, message);
                    }

                    @Override
                    public List<Sim> sims() {
                        return readSims();
                    }
                }, reportResendMs);
        if (inbox != null) hub.useInbox(inbox);
        if (outbox.record() != null) hub.useRecord(outbox.record(), Digest.INTERVAL_MS);
    }

    /** Protocol 6: telemetry, the log on request and the pushed settings go through this link; call before {@link #start()}. */
    public void usePhone(PhoneLink phone) {
        hub.usePhone(phone);
    }

    public void start() {
        loop.post(new Runnable() {
            @Override
            public void run() {
                if (running) return;
                running = true;
                outbox.setListener(new Outbox.Listener() {
                    @Override
                    public void onReport(final Report report) {
                        // From the receivers' thread too: the connection lives on the loop.
                        loop.post(new Runnable() {
                            @Override
                            public void run() {
                                reported(report);
                            }
                        });
                    }

                    @Override
                    public void onChanged() {
                        loop.post(new Runnable() {
                            @Override
                            public void run() {
                                publish();
                            }
                        });
                    }
                });
                if (inbox != null) {
                    inbox.setListener(new Inbox.Listener() {
                        @Override
                        public void onReceived(ReceivedSms sms) {
                            // From the SMS receiver's thread: the connection lives on the loop.
                            loop.post(new Runnable() {
                                @Override
                                public void run() {
                                    if (running) hub.receivedChanged();
                                }
                            });
                        }
                    });
                }
                for (String id : outbox.failedAtOpen()) log.info(id + " was interrupted while sending: reported failed, not sent again");
                for (String id : outbox.expiredAtOpen()) log.info(id + " expired while the app was stopped: reported failed, not sent");
                // Accepted before a restart and not yet handed to Android: in acceptance order.
                for (Sms sms : outbox.toSend()) handOver(sms);
                hub.start();
                scheduleSweep();
            }
        });
    }

    /** Closes the connection; SMS already handed to Android still get their reports recorded. */
    public void stop() {
        loop.post(new Runnable() {
            @Override
            public void run() {
                stopOnLoop();
            }
        });
    }

    public void networkChanged() {
        loop.post(new Runnable() {
            @Override
            public void run() {
                if (running) hub.networkChanged();
            }
        });
    }

    private void stopOnLoop() {
        if (!running) return;
        running = false;
        if (sweepTimer != null) sweepTimer.cancel();
        outbox.setListener(null);
        if (inbox != null) inbox.setListener(null);
        hub.stop();
    }

    private void scheduleSweep() {
        sweepTimer = loop.schedule(new Runnable() {
            @Override
            public void run() {
                if (!running) return;
                outbox.sweep();
                scheduleSweep();
            }
        }, SWEEP_INTERVAL_MS);
    }

    /** Sets (or, with null, forgets) the end-to-end passphrase the owner entered in the app. */
    public void setPassphrase(String passphrase) {
        this.passphrase = passphrase == null || passphrase.isEmpty() ? null : passphrase;
    }

    /** Hands an accepted SMS to the phone: {@code sending} is on disk before the sender is called. */
    private void handOver(Sms sms) {
        OutboxEntry e = outbox.get(sms.messageId);
        if (e == null || !OutboxEntry.ACCEPTED.equals(e.state)) return;
        if (outbox.dropIfExpired(sms.messageId)) {
            log.info(sms.messageId + " expired before it was sent: reported failed, not sent");
            return;
        }
        // Protocol 4: the SIM of the slot asked for, read now (a SIM may have been removed since the ack).
        Sim.Choice choice = Sim.choose(sms.sim, sms.sim > 0 ? readSims() : null, sms.sim > 0 ? 0 : defaultSlot());
        if (choice.error != null) {
            log.info(sms.messageId + " asked for SIM " + sms.sim + ", absent: reported failed, not sent");
            outbox.refuse(sms.messageId, choice.error);
            return;
        }
        // Protocol 8: an envelope is opened now, with the owner's passphrase; the outbox keeps the envelope.
        EncryptedTexts.Opened opened = EncryptedTexts.forSending(sms.text, passphrase);
        if (opened.error != null) {
            log.info(sms.messageId + " encrypted and not opened (" + opened.error.code + "): reported failed, not sent");
            outbox.refuse(sms.messageId, opened.error);
            return;
        }
        List<String> parts;
        try {
            parts = sender.divide(opened.text);
        } catch (RuntimeException ex) {
            parts = null;
        }
        outbox.markSending(sms.messageId, parts == null || parts.isEmpty() ? 1 : parts.size(), choice.slot);
        if (parts == null || parts.isEmpty()) {
            outbox.fail(sms.messageId, new SmsError(SmsError.DEVICE_ERROR, "Android could not split the text into SMS parts"));
            return;
        }
        try {
            sender.send(sms.messageId, sms.to, parts, choice.sim);
            outbox.markHandedOver(sms.messageId);
            log.info(sms.messageId + " handed to Android in " + parts.size() + " part(s)");
        } catch (SmsSender.Refused refused) {
            outbox.fail(sms.messageId, refused.error);
        } catch (RuntimeException ex) {
            // SecurityException (SMS permission withdrawn), IllegalArgumentException (bad address)...
            log.warn(sms.messageId + " refused by Android", ex);
            outbox.fail(sms.messageId, new SmsError(SmsError.DEVICE_ERROR, "Android refused to send: " + ex.getClass().getSimpleName()));
        }
    }

    /** The sender's SIMs; null (unknown) if reading them failed, which must never stop a send. */
    private List<Sim> readSims() {
        try {
            return sender.sims();
        } catch (RuntimeException ex) {
            log.warn("could not read the SIMs", ex);
            return null;
        }
    }

    private int defaultSlot() {
        try {
            return sender.defaultSlot();
        } catch (RuntimeException ex) {
            return 0;
        }
    }

    private void reported(Report report) {
        lastSmsId = report.messageId;
        lastSmsStatus = report.status;
        lastSmsAt = report.at;
        if (report.error != null) error(report.messageId + " failed: " + report.error.code);
        log.info(report.messageId + " " + report.status + (report.error == null ? "" : " (" + report.error.code + ")"));
        if (running) hub.sendReport(report);
        publish();
    }

    private void error(String message) {
        lastError = message;
        lastErrorAt = clock.now();
    }

    private void publish() {
        listener.onStatus(new Status(state, outbox.queued(), lastSmsId, lastSmsStatus, lastSmsAt, lastError, lastErrorAt));
    }
}
