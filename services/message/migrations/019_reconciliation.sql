-- Reconciliation with the phones' digests (protocol 7, issue 38). `repairs`: what the digests
-- repaired on a message, oldest first ({kind, device_id, at}); NULL when nothing was (the column
-- is added without rewriting the table). `device_repairs`: how many repairs of each kind each
-- phone's digests made, for the dashboard's phone page.
ALTER TABLE messages ADD COLUMN repairs jsonb;

CREATE TABLE device_repairs (
  device_id text NOT NULL,
  kind      text NOT NULL,
  count     bigint NOT NULL,
  last_at   timestamptz NOT NULL,
  PRIMARY KEY (device_id, kind)
);
