package org.smsgw.agent.core;

import java.util.List;

/**
 * Protocol 6 on the app's side, as the Node agent's PhoneLink: telemetry at each hello of a hub
 * of version 6 or later, then at least every 5 minutes and at once on a significant change; the
 * recent log when the hub asks ({@code log_request}); the server-owned settings the hub pushes
 * ({@code settings}), kept and acknowledged ({@code settings_applied}). Runs on the agent's loop.
 */
public final class PhoneLink {
    public static final int PROTOCOL = 6;

    /** Where the pushed settings are kept (the app's preferences; a map in tests). */
    public interface SettingsStore {
        void save(String settingsJson);
    }

    private final Telemetry.Source source;
    private final LogRing ring;
    private final SettingsStore settings;
    private final EventLoop loop;
    private final Clock clock;
    private final Logger log;
    private final long sampleMs;
    private final long intervalMs;
    private Transport.Connection conn;
    private EventLoop.Timer timer;
    private Telemetry lastSent;
    private long lastSentAt;

    public PhoneLink(Telemetry.Source source, LogRing ring, SettingsStore settings, EventLoop loop, Clock clock, Logger log) {
        this(source, ring, settings, loop, clock, log, Telemetry.SAMPLE_MS, Telemetry.INTERVAL_MS);
    }

    public PhoneLink(Telemetry.Source source, LogRing ring, SettingsStore settings, EventLoop loop, Clock clock, Logger log,
            long sampleMs, long intervalMs) {
        this.source = source;
        this.ring = ring;
        this.settings = settings;
        this.loop = loop;
        this.clock = clock;
        this.log = log;
        this.sampleMs = sampleMs;
        this.intervalMs = intervalMs;
    }

    /** After the hub's hello: nothing for a hub older than protocol 6. */
    void open(Transport.Connection c, int hubProtocol) {
        close();
        if (hubProtocol < PROTOCOL) return;
        conn = c;
        lastSent = null;
        sample();
    }

    void close() {
        conn = null;
        if (timer != null) timer.cancel();
        timer = null;
    }

    private void sample() {
        timer = null;
        if (conn == null) return;
        Telemetry next;
        try {
            next = source.read();
        } catch (RuntimeException e) {
            log.warn("the phone's state could not be read", e);
            next = null;
        }
        long now = clock.now();
        if (next != null && (Telemetry.significantChange(lastSent, next) || now - lastSentAt >= intervalMs)) {
            lastSent = next;
            lastSentAt = now;
            conn.send(next.toFrame());
        }
        timer = loop.schedule(new Runnable() {
            @Override
            public void run() {
                sample();
            }
        }, sampleMs);
    }

    void onLogRequest() {
        log.info("the hub asked for the log");
        if (conn == null) return;
        List<String> lines = LogRing.bounded(ring.snapshot(), LogRing.FRAME_MAX_BYTES);
        conn.send(Protocol.log(lines));
    }

    void onSettings(String version, String settingsJson) {
        if (conn == null) return;
        try {
            settings.save(settingsJson);
        } catch (RuntimeException e) {
            log.warn("the settings could not be kept; not acknowledged", e);
            return;
        }
        log.info("settings applied: " + version);
        conn.send(Protocol.settingsApplied(version, settingsJson));
    }
}
