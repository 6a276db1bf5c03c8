-- The owner's alert e-mail of each otp.fraud_suspected event (issue 39): one
-- row per event, so that a redelivered event sends no second e-mail.
CREATE TABLE otp_alerts (
  event_id  text PRIMARY KEY,
  client_id text NOT NULL,
  state     text NOT NULL CHECK (state IN ('sent', 'skipped')),
  at        timestamptz NOT NULL DEFAULT now()
);
