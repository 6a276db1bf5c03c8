-- Device passwords: the lookup (the password's first group) is unique per client, not over the
-- whole hub. Its 923,521 values made creation fail by the birthday bound after about a thousand
-- devices; the use case now also draws again on the rare clash within one client.
ALTER TABLE devices DROP CONSTRAINT devices_password_lookup_key;
ALTER TABLE devices ADD CONSTRAINT devices_client_password_lookup_key UNIQUE (client_id, password_lookup);

-- Pairing codes: a public lookup part (to count wrong tries per code) and a 128-bit secret part,
-- of which only the hash is kept. Codes issued before (8 characters, 24 hours) are void: such a
-- device pairs with its device password.
ALTER TABLE devices DROP CONSTRAINT devices_pairing_code_hash_key;
ALTER TABLE devices ADD COLUMN pairing_code_lookup text;
ALTER TABLE devices ADD CONSTRAINT devices_pairing_code_lookup_key UNIQUE (pairing_code_lookup);
UPDATE devices SET pairing_code_hash = NULL, pairing_expires_at = NULL WHERE pairing_code_hash IS NOT NULL;
