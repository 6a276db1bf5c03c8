-- Members of an account (issue 41): every user of a client has a role. The user a client was
-- signed up with is its first owner; the others are invited by e-mail.
--   owner      everything, members included
--   admin      keys, phones, webhooks, settings
--   developer  test-mode keys; reads everything
--   support    history, inbox and replies, opt-outs; no keys or secrets
ALTER TABLE users ADD COLUMN role text NOT NULL DEFAULT 'owner'
  CHECK (role IN ('owner', 'admin', 'developer', 'support'));
CREATE INDEX users_client ON users (client_id);
-- A member removed keeps its row (the keys it made still name it) but can no longer sign in;
-- its address may be invited again, to any account.
ALTER TABLE users ADD COLUMN removed_at timestamptz;
DROP INDEX users_email;
CREATE UNIQUE INDEX users_email ON users (lower(email)) WHERE removed_at IS NULL;

-- Invitations: the link mailed to the invited address; only the token's SHA-256 is kept, used
-- once (accepted_at) and expiring. Revoked (revoked_at) when the invitation is withdrawn.
CREATE TABLE invitations (
  token_hash  bytea PRIMARY KEY,
  client_id   text NOT NULL REFERENCES clients (client_id),
  email       text NOT NULL,
  role        text NOT NULL CHECK (role IN ('owner', 'admin', 'developer', 'support')),
  invited_by  text REFERENCES users (user_id) ON DELETE SET NULL,
  expires_at  timestamptz NOT NULL,
  accepted_at timestamptz,
  revoked_at  timestamptz,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX invitations_client ON invitations (client_id) WHERE accepted_at IS NULL AND revoked_at IS NULL;
