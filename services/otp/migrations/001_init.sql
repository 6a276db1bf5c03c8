-- One-time passwords. The code itself is never stored: only
-- HMAC-SHA256(OTP_HASH_KEY, otp_id || ':' || code). Neither the phone number
-- nor the text is kept here; the SMS is a message of the message service.
CREATE TABLE otps (
  otp_id      text PRIMARY KEY,
  client_id   text NOT NULL,
  mode        text NOT NULL CHECK (mode IN ('live', 'test')),
  code_hash   bytea NOT NULL,
  message_id  text,
  expires_at  timestamptz NOT NULL,
  -- Wrong codes tried; at 3 the OTP is spent.
  attempts    smallint NOT NULL DEFAULT 0 CHECK (attempts BETWEEN 0 AND 3),
  verified_at timestamptz,
  created_at  timestamptz NOT NULL DEFAULT now()
);

-- The purge of old OTPs.
CREATE INDEX otps_expires ON otps (expires_at);
