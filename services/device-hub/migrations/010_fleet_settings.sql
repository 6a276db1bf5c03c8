-- An account's settings for all its phones (issue 38), one row per client that saved them (no row:
-- the defaults): how long a phone may stay offline before its owner is warned (null: the hub's
-- default; 0: never), and the SIM health thresholds every phone of the account follows unless it
-- has its own (devices.sim_health_settings; a key missing here: the hub's default).
CREATE TABLE fleet_settings (
  client_id             text PRIMARY KEY,
  offline_alert_seconds integer CHECK (offline_alert_seconds >= 0),
  sim_health            jsonb NOT NULL DEFAULT '{}',
  updated_at            timestamptz NOT NULL DEFAULT now()
);

-- The offline warning, once per offline spell: set when the warning goes out; a spell is over when
-- the phone is seen again (devices.last_seen_at later than it).
ALTER TABLE device_diagnostics ADD COLUMN offline_warned_at timestamptz;
-- The phones of before count as warned of their current spell: a phone retired months ago but not
-- removed sends no e-mail on the day this ships; each warns from its next connection on.
INSERT INTO device_diagnostics (device_id, offline_warned_at)
  SELECT device_id, now() FROM devices WHERE removed_at IS NULL AND last_seen_at IS NOT NULL
  ON CONFLICT (device_id) DO UPDATE SET offline_warned_at = now();

-- The offline sweep reads the phones not seen for a while.
CREATE INDEX devices_last_seen ON devices (last_seen_at) WHERE removed_at IS NULL AND last_seen_at IS NOT NULL;
