-- Durable timers. A pending timer is taken by the replica that claims it
-- (FOR UPDATE SKIP LOCKED), which moves `run_at` a lease ahead before
-- publishing: if that replica dies, the timer is due again when the lease
-- runs out and another replica fires it (JetStream drops the repeat by its
-- Nats-Msg-Id).
CREATE TABLE timers (
  timer_id     text PRIMARY KEY,
  key          text NOT NULL UNIQUE,
  fire_at      timestamptz NOT NULL,
  subject      text NOT NULL,
  payload      bytea NOT NULL,
  state        text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'fired', 'cancelled')),
  -- When a replica should next try to fire it: fire_at, then the end of each claim's lease.
  run_at       timestamptz NOT NULL,
  -- First claim; once set, the timer is being fired and can no longer be cancelled.
  claimed_at   timestamptz,
  attempts     integer NOT NULL DEFAULT 0,
  created_at   timestamptz NOT NULL DEFAULT now(),
  fired_at     timestamptz,
  cancelled_at timestamptz
);

-- The next due timer, and the claim of due timers, in index order.
CREATE INDEX timers_due ON timers (run_at) WHERE state = 'pending';
-- Clean-up of old fired and cancelled timers.
CREATE INDEX timers_done ON timers (coalesce(fired_at, cancelled_at)) WHERE state <> 'pending';
