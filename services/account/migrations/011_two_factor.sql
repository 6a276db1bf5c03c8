-- Two-factor sign-in (issue 41): a member's TOTP secret (RFC 6238, 20 random bytes), kept while
-- it enrols (totp_enabled_at null) and once enrolled; the last time step a code was accepted for,
-- so that no code is taken twice. An owner may require a second factor of every member.
ALTER TABLE users
  ADD COLUMN totp_secret bytea,
  ADD COLUMN totp_enabled_at timestamptz,
  ADD COLUMN totp_last_step bigint NOT NULL DEFAULT 0;
ALTER TABLE clients ADD COLUMN require_two_factor boolean NOT NULL DEFAULT false;

-- Recovery codes: shown once at enrolment, kept as SHA-256 hashes, each used once.
CREATE TABLE recovery_codes (
  user_id   text NOT NULL REFERENCES users (user_id),
  code_hash bytea NOT NULL,
  used_at   timestamptz,
  PRIMARY KEY (user_id, code_hash)
);
