CREATE TABLE clients (
  client_id      text PRIMARY KEY,
  email          text NOT NULL,
  name           text NOT NULL DEFAULT '',
  -- Signs per-message webhook deliveries; needed in clear to compute HMACs.
  signing_secret text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  key_id       text PRIMARY KEY,
  client_id    text NOT NULL REFERENCES clients (client_id),
  mode         text NOT NULL CHECK (mode IN ('live', 'test')),
  lookup       text NOT NULL UNIQUE,
  key_hash     bytea NOT NULL,
  label        text NOT NULL DEFAULT '',
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz,
  revoked_at   timestamptz
);

CREATE INDEX api_keys_client ON api_keys (client_id);
