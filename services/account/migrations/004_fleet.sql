-- The client's fleet settings (issue 23). default_ttl_seconds: how long a send that gives no
-- ttl may wait for a phone (0: no limit). failover_delay_seconds: how long a phone may stay
-- offline before its unpinned queued messages move to the client's other phones.
ALTER TABLE clients
  ADD COLUMN default_ttl_seconds int NOT NULL DEFAULT 0
    CHECK (default_ttl_seconds = 0 OR default_ttl_seconds BETWEEN 60 AND 604800),
  ADD COLUMN failover_delay_seconds int NOT NULL DEFAULT 60
    CHECK (failover_delay_seconds BETWEEN 10 AND 86400);
