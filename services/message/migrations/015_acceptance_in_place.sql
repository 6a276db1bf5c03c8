-- A phone's acknowledgement (accepted_at, the lease, the SIM) changes no indexed column, so that
-- Postgres writes it in the row's page with no index entry at all (a HOT update), as it does a
-- claim: the queue indexes no longer name accepted_at (the claims still ask for accepted_at IS
-- NULL, and step over the few acknowledged messages a queue holds until their report), and the
-- report time-out looks for acknowledged messages among the queued ones by their queueing time.
-- Pages keep a sixth free for those updates.
ALTER TABLE messages SET (fillfactor = 85);

CREATE INDEX messages_queue_v2 ON messages (device_id, priority, due_at, message_id)
  WHERE status = 'queued' AND NOT held;
DROP INDEX messages_queue;
ALTER INDEX messages_queue_v2 RENAME TO messages_queue;

CREATE INDEX messages_fleet_queue_v2 ON messages (client_id, mode, priority, due_at, message_id)
  WHERE fleet AND status = 'queued' AND NOT held;
DROP INDEX messages_fleet_queue;
ALTER INDEX messages_fleet_queue_v2 RENAME TO messages_fleet_queue;

CREATE INDEX messages_test_queue_v2 ON messages (priority, due_at, message_id)
  WHERE mode = 'test' AND status = 'queued' AND NOT held;
DROP INDEX messages_test_queue;
ALTER INDEX messages_test_queue_v2 RENAME TO messages_test_queue;

CREATE INDEX messages_expiry_v2 ON messages (expires_at)
  WHERE expires_at IS NOT NULL AND status = 'queued';
DROP INDEX messages_expiry;
ALTER INDEX messages_expiry_v2 RENAME TO messages_expiry;

CREATE INDEX messages_queued_since ON messages (queued_at) WHERE status = 'queued';
DROP INDEX messages_awaiting_report;
