-- A phone's diagnostics and warnings (issue 38), one row per phone, made on first use: the last
-- log it sent when asked (protocol 6, redacted on the phone), the server-owned settings last
-- pushed to it and those it said it applied, and the state of the owner's low-battery warning (sent
-- once per episode: the time is set when it is sent and cleared when the episode ends).
CREATE TABLE device_diagnostics (
  device_id text PRIMARY KEY,
  log_requested_at timestamptz,
  log_received_at timestamptz,
  -- The lines, oldest first.
  log_lines jsonb NOT NULL DEFAULT '[]',
  settings_version text NOT NULL DEFAULT '',
  settings_sent_at timestamptz,
  settings_applied_version text NOT NULL DEFAULT '',
  settings_applied_at timestamptz,
  battery_low_warned_at timestamptz
);
