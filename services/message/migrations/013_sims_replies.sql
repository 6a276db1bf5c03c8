-- Several SIMs and replies (issue 24). Constant defaults and no CHECK: the
-- columns are added without rewriting or scanning the table (the service
-- keeps slots within 0 to 8).
-- `requested_sim`: the SIM slot the caller asked for (1 to 8), 0 for none;
--   a claim that names the slots with room takes only 0 or one of them.
-- `sim`: the slot the phone sends through: the requested one at first, then
--   the one the hub chose at the acknowledgement (or the phone's report
--   said); 0 when unknown (the phone's default SIM).
-- `replies`: SMS received from `to_number` within 24 h of its queueing go
--   to its webhook_url too (`sms.received` with `in_reply_to`).
-- Earlier attempts (jsonb) carry the `sim` of their try from now on.
ALTER TABLE messages
  ADD COLUMN requested_sim smallint NOT NULL DEFAULT 0,
  ADD COLUMN sim smallint NOT NULL DEFAULT 0,
  ADD COLUMN replies boolean NOT NULL DEFAULT false;

-- A received SMS looks for the newest message of its client and mode to its
-- sender that asked for replies: one probe in a small partial index.
CREATE INDEX messages_replies ON messages (client_id, mode, to_number, queued_at DESC)
  WHERE replies AND webhook_url IS NOT NULL;
