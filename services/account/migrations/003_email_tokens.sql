-- Alert e-mails go only to a verified address. Addresses of clients made before this version
-- were already receiving alerts and are taken as verified; so is an address an operator gives
-- (CreateClient). A sign-up's address, or a changed one, waits for its link.
ALTER TABLE clients ADD COLUMN email_verified_at timestamptz;
UPDATE clients SET email_verified_at = created_at;

-- The links mailed to owners: address verification and password reset. Only the token's SHA-256
-- is kept; a token is used once (used_at) and expires.
CREATE TABLE email_tokens (
  token_hash bytea PRIMARY KEY,
  purpose    text NOT NULL CHECK (purpose IN ('verify_email', 'reset_password')),
  client_id  text NOT NULL REFERENCES clients (client_id),
  user_id    text REFERENCES users (user_id),
  email      text NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at    timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX email_tokens_user ON email_tokens (user_id) WHERE used_at IS NULL;
CREATE INDEX email_tokens_expiry ON email_tokens (expires_at);
