-- Device passwords: a revoked device has none (NULL) until its credentials are rotated. Hashes
-- are now scrypt (`scrypt$...`); the bare SHA-256 ones of before still verify and are replaced
-- at the device's next successful pairing with its password.
ALTER TABLE devices ALTER COLUMN password_hash DROP NOT NULL;
