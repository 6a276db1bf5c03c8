-- Idempotency-Key of the sending endpoints, stored in the same statement as
-- the message (or batch) it created: a retry after a lost answer (timeout,
-- gateway gone) finds what was stored instead of sending it again. One key per
-- client and mode; `request_hash` tells the same request from another one
-- sent with the same key. A key older than the idempotency TTL is free again
-- (its row is replaced); the rows go with their message or batch (retention).
CREATE TABLE idempotency_keys (
  client_id       text NOT NULL,
  mode            text NOT NULL CHECK (mode IN ('live', 'test')),
  idempotency_key text NOT NULL,
  request_hash    text NOT NULL,
  message_id      text REFERENCES messages (message_id) ON DELETE CASCADE,
  batch_id        text REFERENCES batches (batch_id) ON DELETE CASCADE,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (client_id, mode, idempotency_key),
  CHECK ((message_id IS NULL) <> (batch_id IS NULL))
);
CREATE INDEX idempotency_keys_message ON idempotency_keys (message_id) WHERE message_id IS NOT NULL;
CREATE INDEX idempotency_keys_batch ON idempotency_keys (batch_id) WHERE batch_id IS NOT NULL;
