-- The Idempotency-Key of send-otp, kept with the OTP it made (24 h): a retry
-- with the same key and request answers that OTP; with another request, 422.
-- `message_id` is chosen before the SMS is sent, so a retry finds the SMS the
-- first call stored (message.SendOtpMessage is idempotent by id).
-- `sealed_text` is the SMS text (code included), AES-256-GCM under
-- OTP_SEAL_KEY and bound to the OTP id, kept only until the message service
-- has stored the SMS: a retry after a lost answer needs it to send the same
-- code; it is erased as soon as the SMS is stored, and with the OTP's expiry.
ALTER TABLE otps ADD COLUMN idempotency_key text;
ALTER TABLE otps ADD COLUMN request_hash text;
ALTER TABLE otps ADD COLUMN sealed_text bytea;
CREATE UNIQUE INDEX otps_idempotency ON otps (client_id, mode, idempotency_key) WHERE idempotency_key IS NOT NULL;
