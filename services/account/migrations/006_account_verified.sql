-- Whether the account proved it holds its owner's address (issue 36): a verification link to the
-- owner's sign-in address or a password reset link used, or an operator vouching for it. Live
-- keys, phones and webhook endpoints wait for it; the first proof by a reset revokes what was
-- made before it. Accounts of before: those an operator made (no user), those whose owner's
-- address was verified as their alert address, and those that used a reset link count as proven.
ALTER TABLE clients ADD COLUMN account_verified_at timestamptz;
UPDATE clients c SET account_verified_at = c.created_at
  WHERE NOT EXISTS (SELECT 1 FROM users u WHERE u.client_id = c.client_id);
UPDATE clients c SET account_verified_at = c.email_verified_at
  FROM users u
  WHERE u.client_id = c.client_id AND lower(u.email) = lower(c.email) AND c.email_verified_at IS NOT NULL;
UPDATE clients c SET account_verified_at = proof.used_at
  FROM (SELECT t.client_id, min(t.used_at) AS used_at
          FROM email_tokens t JOIN users u ON u.user_id = t.user_id OR (t.user_id IS NULL AND u.client_id = t.client_id)
         WHERE t.used_at IS NOT NULL AND lower(t.email) = lower(u.email)
         GROUP BY t.client_id) proof
  WHERE c.client_id = proof.client_id AND c.account_verified_at IS NULL;
