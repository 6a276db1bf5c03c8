-- SMPP credentials (issue 40): what a client's SMPP systems bind with. The
-- system id is public (it names the credential); the password is stored as
-- the SHA-256 of `<system_id>:<password>`, as keys are, and shown once. A
-- credential binds as its bind type (a transceiver one as any of the three),
-- in its mode (live or test), optionally sending through one phone.
CREATE TABLE smpp_credentials (
  credential_id text PRIMARY KEY,
  client_id     text NOT NULL REFERENCES clients (client_id),
  system_id     text NOT NULL UNIQUE,
  password_hash bytea NOT NULL,
  bind_type     text NOT NULL CHECK (bind_type IN ('transmitter', 'receiver', 'transceiver')),
  mode          text NOT NULL CHECK (mode IN ('live', 'test')),
  label         text NOT NULL DEFAULT '',
  device_id     text NOT NULL DEFAULT '',
  created_by    text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  last_bound_at timestamptz,
  revoked_at    timestamptz
);

CREATE INDEX smpp_credentials_client ON smpp_credentials (client_id, created_at DESC);
