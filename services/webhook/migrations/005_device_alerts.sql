-- The owner's alert e-mail of each device.degraded event (issue 38, a SIM quarantined): one row
-- per event, so that a redelivered event sends no second e-mail.
CREATE TABLE device_alerts (
  event_id  text PRIMARY KEY,
  client_id text NOT NULL,
  state     text NOT NULL CHECK (state IN ('sent', 'skipped')),
  at        timestamptz NOT NULL DEFAULT now()
);
