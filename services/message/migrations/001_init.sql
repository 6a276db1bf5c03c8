CREATE TABLE batches (
  batch_id   text PRIMARY KEY,
  client_id  text NOT NULL,
  mode       text NOT NULL CHECK (mode IN ('live', 'test')),
  total      integer NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE messages (
  message_id    text PRIMARY KEY,
  client_id     text NOT NULL,
  mode          text NOT NULL CHECK (mode IN ('live', 'test')),
  device_id     text NOT NULL,
  batch_id      text REFERENCES batches (batch_id),
  status        text NOT NULL CHECK (status IN ('queued', 'sent', 'delivered', 'failed', 'cancelled')),
  to_number     text NOT NULL,
  body          text NOT NULL,
  priority      smallint NOT NULL CHECK (priority BETWEEN 1 AND 5),
  metadata      jsonb,
  webhook_url   text,
  parts         smallint NOT NULL,
  encoding      text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  queued_at     timestamptz NOT NULL DEFAULT now(),
  scheduled_at  timestamptz,
  -- When the message may be claimed: its scheduled time, or its creation.
  due_at        timestamptz NOT NULL DEFAULT now(),
  -- A claim by a device-hub replica, until the phone acknowledges it.
  lease_until   timestamptz,
  claim_count   integer NOT NULL DEFAULT 0,
  -- The phone has the message in its outbox: it is no longer offered.
  accepted_at   timestamptz,
  sent_at       timestamptz,
  delivered_at  timestamptz,
  failed_at     timestamptz,
  cancelled_at  timestamptz,
  error_code    text,
  error_message text
);

-- The per-device queue: priority 1 first, then the oldest due.
CREATE INDEX messages_queue ON messages (device_id, priority, due_at, message_id)
  WHERE status = 'queued' AND accepted_at IS NULL;
CREATE INDEX messages_client_created ON messages (client_id, mode, created_at DESC);
CREATE INDEX messages_batch ON messages (batch_id) WHERE batch_id IS NOT NULL;
