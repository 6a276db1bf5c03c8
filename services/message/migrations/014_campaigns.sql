-- CSV campaigns (issue 25): a named set of messages of one client and mode,
-- paused, resumed and cancelled as one.
CREATE TABLE campaigns (
  campaign_id text PRIMARY KEY,
  client_id   text NOT NULL,
  mode        text NOT NULL CHECK (mode IN ('live', 'test')),
  name        text NOT NULL,
  status      text NOT NULL CHECK (status IN ('running', 'paused', 'cancelled')),
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX campaigns_list ON campaigns (client_id, mode, created_at DESC, campaign_id DESC);

-- `campaign_id`: the campaign a message belongs to (NULL: none).
-- `held`: a message of a paused campaign that no phone has taken: still
--   `queued` for status and history, but out of the claimable set (the queue
--   indexes below leave it out), never expired, moved to the fleet or counted
--   stranded while held. Resume clears it.
-- Constant defaults: the columns are added without rewriting the table.
ALTER TABLE messages
  ADD COLUMN campaign_id text,
  ADD COLUMN held boolean NOT NULL DEFAULT false;

-- A campaign's messages: its counts, and pause, resume and cancel.
CREATE INDEX messages_campaign ON messages (campaign_id) WHERE campaign_id IS NOT NULL;

-- The queue indexes leave held messages out, so that thousands of them cost
-- a claim nothing: every query of the claimable set says `NOT held`.
CREATE INDEX messages_queue_unheld ON messages (device_id, priority, due_at, message_id)
  WHERE status = 'queued' AND accepted_at IS NULL AND NOT held;
DROP INDEX messages_queue;
ALTER INDEX messages_queue_unheld RENAME TO messages_queue;

CREATE INDEX messages_fleet_queue_unheld ON messages (client_id, mode, priority, due_at, message_id)
  WHERE fleet AND status = 'queued' AND accepted_at IS NULL AND NOT held;
DROP INDEX messages_fleet_queue;
ALTER INDEX messages_fleet_queue_unheld RENAME TO messages_fleet_queue;

CREATE INDEX messages_test_queue_unheld ON messages (priority, due_at, message_id)
  WHERE mode = 'test' AND status = 'queued' AND accepted_at IS NULL AND NOT held;
DROP INDEX messages_test_queue;
ALTER INDEX messages_test_queue_unheld RENAME TO messages_test_queue;
