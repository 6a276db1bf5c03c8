CREATE TABLE devices (
  device_id          text PRIMARY KEY,
  client_id          text NOT NULL,
  name               text NOT NULL DEFAULT '',
  password_lookup    text NOT NULL UNIQUE,
  password_hash      bytea NOT NULL,
  pairing_code_hash  bytea UNIQUE,
  pairing_expires_at timestamptz,
  created_at         timestamptz NOT NULL DEFAULT now(),
  last_seen_at       timestamptz
);
CREATE INDEX devices_client ON devices (client_id);

CREATE TABLE device_tokens (
  token_id   text PRIMARY KEY,
  device_id  text NOT NULL REFERENCES devices (device_id),
  lookup     text NOT NULL UNIQUE,
  token_hash bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX device_tokens_device ON device_tokens (device_id);
