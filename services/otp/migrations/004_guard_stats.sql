-- Issue 39: conversion statistics, the pumping guard, the end-user key.
-- What each OTP's statistics and guard need, stored when it is made (never
-- parsed again at read time): the destination's country (ISO 3166-1
-- alpha-2, 'ZZ' when none), the device it was first queued on, and the
-- guard's key of its prefix (a keyed hash: no part of a number is kept here).
-- Rows from before stay NULL: they count under 'ZZ' and no device.
ALTER TABLE otps
  ADD COLUMN country text,
  ADD COLUMN device_id text,
  ADD COLUMN prefix_key text;

-- Statistics read a client's OTPs of a mode by created_at.
CREATE INDEX otps_stats ON otps (client_id, mode, created_at);

-- The purge folds the OTPs it deletes into daily rollups (by UTC day of
-- created_at, country and device), so that statistics outlive the rows.
CREATE TABLE otp_daily (
  client_id       text NOT NULL,
  mode            text NOT NULL CHECK (mode IN ('live', 'test')),
  day             date NOT NULL,
  country         text NOT NULL,
  device_id       text NOT NULL,
  sent            integer NOT NULL DEFAULT 0,
  verified        integer NOT NULL DEFAULT 0,
  expired         integer NOT NULL DEFAULT 0,
  failed_attempts integer NOT NULL DEFAULT 0,
  PRIMARY KEY (client_id, mode, day, country, device_id)
);

-- A client's own thresholds of the guard; without a row, the operator's defaults.
CREATE TABLE guard_settings (
  client_id               text PRIMARY KEY,
  enabled                 boolean NOT NULL,
  window_seconds          integer NOT NULL,
  prefix_min_requests     integer NOT NULL,
  prefix_min_conversion   integer NOT NULL,
  country_min_requests    integer NOT NULL,
  country_min_conversion  integer NOT NULL,
  end_user_limit          integer NOT NULL,
  end_user_window_seconds integer NOT NULL,
  updated_at              timestamptz NOT NULL DEFAULT now()
);

-- Every hold the guard made: what tripped it, until when, and whether the
-- owner released it. Redis holds the live state the sends check; this is
-- what the owner reads and releases. `prefix` is the held prefix as the
-- owner must see it (the number without its last 4 digits, or "+33" for a
-- country); `prefix_key` is the guard's key of it.
CREATE TABLE holds (
  hold_id        text PRIMARY KEY,
  client_id      text NOT NULL,
  mode           text NOT NULL CHECK (mode IN ('live', 'test')),
  scope          text NOT NULL CHECK (scope IN ('prefix', 'country')),
  prefix         text NOT NULL,
  prefix_key     text NOT NULL,
  country        text NOT NULL,
  requests       integer NOT NULL,
  verified       integer NOT NULL,
  window_seconds integer NOT NULL,
  held_at        timestamptz NOT NULL DEFAULT now(),
  held_until     timestamptz NOT NULL,
  released_at    timestamptz,
  event_id       text NOT NULL
);
CREATE INDEX holds_client ON holds (client_id, held_at DESC);
