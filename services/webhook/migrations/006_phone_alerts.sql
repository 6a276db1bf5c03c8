-- The owner's warning e-mail of each phone alert (issue 38: device.battery_low): one row per
-- event, so that a redelivered event sends no second e-mail.
CREATE TABLE phone_alerts (
  event_id  text PRIMARY KEY,
  client_id text NOT NULL,
  kind      text NOT NULL,
  state     text NOT NULL CHECK (state IN ('sent', 'skipped')),
  at        timestamptz NOT NULL DEFAULT now()
);
