-- One-time passwords' SMS. `body` holds the text with the code masked (what
-- status and history show); the full text is sealed (AES-256-GCM under
-- OTP_SEAL_KEY, the message id as associated data) in `otp_sealed_text`,
-- opened only when the message is handed to a phone, and erased once the
-- message is final. Such a message is never handed out after `expires_at`.
ALTER TABLE messages ADD COLUMN otp_sealed_text bytea, ADD COLUMN expires_at timestamptz;

-- The expiry sweep looks only at OTP messages still waiting for a phone.
CREATE INDEX messages_otp_expiry ON messages (expires_at)
  WHERE expires_at IS NOT NULL AND status = 'queued' AND accepted_at IS NULL;
