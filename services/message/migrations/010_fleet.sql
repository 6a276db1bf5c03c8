-- The fleet (issue 23). A message may leave the phone it was queued on:
-- `pinned`: the client chose the device (X-Device-ID without failover): it
--   never moves (a removed phone fails it with DEVICE_REMOVED).
-- `fleet`: opened to every live phone of its client (its phone was offline
--   too long or removed, or it failed there without leaving the phone); the
--   first phone that claims it becomes its device and `fleet` is false again.
-- `avoid_device_id`: the phone a fleet message must not go back to (the one
--   it failed on, or the removed one).
-- `attempts`: the earlier tries, oldest first, as JSON objects
--   {device_id, status ("failed" | "moved"), error_code, error_message, at};
--   NULL when none. The current try is the row itself.
-- Constant defaults: the columns are added without rewriting the table.
ALTER TABLE messages
  ADD COLUMN pinned boolean NOT NULL DEFAULT false,
  ADD COLUMN fleet boolean NOT NULL DEFAULT false,
  ADD COLUMN avoid_device_id text,
  ADD COLUMN attempts jsonb;

-- A phone's claim also looks at its client's fleet messages, best first.
CREATE INDEX messages_fleet_queue ON messages (client_id, mode, priority, due_at, message_id)
  WHERE fleet AND status = 'queued' AND accepted_at IS NULL;

-- The expiry sweep now covers every message with an expiry (ttl, OTP).
ALTER INDEX messages_otp_expiry RENAME TO messages_expiry;
