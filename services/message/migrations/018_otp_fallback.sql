-- The delivery fallback of OTPs (issue 39). `otp_fallback_text`: a second copy
-- of an OTP's sealed text (the same seal, bound to the message id), kept for
-- one more try through another phone of the client: taken (moved into
-- otp_sealed_text) when the SMS fails or is not delivered in time, and
-- erased when the OTP expires. Only live, unpinned OTPs have one. NULL
-- default: the column is added without rewriting the table.
ALTER TABLE messages ADD COLUMN otp_fallback_text bytea;

-- The expiry sweep erases the copies of expired OTPs: it reads only these.
CREATE INDEX messages_otp_fallback ON messages (expires_at) WHERE otp_fallback_text IS NOT NULL;
