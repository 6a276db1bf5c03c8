-- When the message service confirmed the OTP's SMS stored. Without it, an OTP
-- whose sealed text is gone (erased at its expiry) cannot tell "SMS stored"
-- from "SMS never stored", and a retry of its send-otp would answer a
-- message_id that may not exist. Rows from before stay NULL: a retry of one
-- asks the message service.
ALTER TABLE otps ADD COLUMN sms_stored_at timestamptz;
-- The sweep that erases the sealed texts of expired OTPs reads only these.
CREATE INDEX otps_sealed ON otps (expires_at) WHERE sealed_text IS NOT NULL;
