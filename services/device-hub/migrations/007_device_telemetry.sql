-- What phones report of themselves (protocol 6, issue 38): one sample per phone and 5-minute slot,
-- the last one of the slot kept, for a day (the hub's purge job deletes older ones). The latest
-- sample of a phone is its current state.
CREATE TABLE device_telemetry (
  device_id text NOT NULL,
  slot timestamptz NOT NULL,
  at timestamptz NOT NULL,
  -- 0 to 100; NULL when the phone cannot tell.
  battery smallint,
  charging boolean NOT NULL,
  -- [{"slot": 1..8, "level"?: 0..4, "dbm"?: int, "network": text}], by slot.
  sims jsonb NOT NULL DEFAULT '[]',
  storage_free_mb bigint,
  app_version text NOT NULL DEFAULT '',
  android_version text NOT NULL DEFAULT '',
  -- Why the system may stop the app: battery_optimized, sms_restricted, no_boot_start.
  risks text[] NOT NULL DEFAULT '{}',
  PRIMARY KEY (device_id, slot)
);
CREATE INDEX device_telemetry_slot ON device_telemetry (slot);
