-- Global endpoints of a client. The secret signs their deliveries; it is
-- shown once at creation and kept to sign (an HMAC key cannot be hashed).
CREATE TABLE endpoints (
  endpoint_id text PRIMARY KEY,
  client_id text NOT NULL,
  mode text NOT NULL CHECK (mode IN ('live', 'test')),
  url text NOT NULL,
  events text[] NOT NULL,
  secret text NOT NULL,
  enabled boolean NOT NULL DEFAULT true,
  description text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);
CREATE INDEX endpoints_client ON endpoints (client_id, mode) WHERE deleted_at IS NULL;

-- One row per event that had at least one destination. `data` is the event's
-- data as JSON text, the same on every attempt and replay; each attempt wraps
-- it in the envelope with its own `timestamp` (when it was signed) and signs that.
CREATE TABLE events (
  event_id text PRIMARY KEY,
  client_id text NOT NULL,
  mode text NOT NULL CHECK (mode IN ('live', 'test')),
  kind text NOT NULL,
  data text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX events_created ON events (created_at);

-- One event to one destination. `destination` is `endpoint:<id>` or
-- `url:<the message's webhook_url>`; an event reaches a destination once
-- (a redelivered event finds its rows), a replay adds a row of its own.
-- The lease is held while an attempt is in flight.
CREATE TABLE deliveries (
  delivery_id text PRIMARY KEY,
  event_id text NOT NULL REFERENCES events ON DELETE CASCADE,
  client_id text NOT NULL,
  endpoint_id text,
  url text NOT NULL,
  destination text NOT NULL,
  replay_of text,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'succeeded', 'failed')),
  attempts int NOT NULL DEFAULT 0,
  lease_until timestamptz,
  next_attempt_at timestamptz,
  last_status int,
  last_error text,
  last_attempt_at timestamptz,
  alert_state text CHECK (alert_state IN ('due', 'sent', 'none')),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX deliveries_once ON deliveries (event_id, destination) WHERE replay_of IS NULL;
CREATE INDEX deliveries_client ON deliveries (client_id, delivery_id DESC);
CREATE INDEX deliveries_endpoint ON deliveries (client_id, endpoint_id, delivery_id DESC);
CREATE INDEX deliveries_event ON deliveries (event_id);
-- What the safety sweep looks at: pending deliveries whose attempt is overdue
-- (a replica died mid-attempt, a retry timer could not be created), and
-- dropped ones whose alert is still to send.
CREATE INDEX deliveries_overdue ON deliveries (next_attempt_at) WHERE state = 'pending';
CREATE INDEX deliveries_alert_due ON deliveries (created_at) WHERE alert_state = 'due';

-- Every attempt: the delivery log.
CREATE TABLE attempts (
  delivery_id text NOT NULL REFERENCES deliveries ON DELETE CASCADE,
  attempt int NOT NULL,
  attempted_at timestamptz NOT NULL,
  http_status int,
  latency_ms int NOT NULL,
  error text,
  PRIMARY KEY (delivery_id, attempt)
);
