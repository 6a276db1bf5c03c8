-- SIM health and quarantine (issue 38). Each SIM's recent results by cause and its state, written
-- by the hub that holds the phone (its results a few seconds late, its changes of state at once):
-- 'healthy', 'quarantined' (nothing is routed to it until probe_after), 'probing' (one probe
-- message handed out at `since`). A phone of one SIM (or that never listed its SIMs) is slot 1.
CREATE TABLE sim_health (
  device_id   text NOT NULL REFERENCES devices (device_id),
  slot        smallint NOT NULL CHECK (slot BETWEEN 1 AND 8),
  state       text NOT NULL DEFAULT 'healthy' CHECK (state IN ('healthy', 'quarantined', 'probing')),
  reason      text NOT NULL DEFAULT '',
  since       timestamptz,
  probe_after timestamptz,
  -- The last results, oldest first, each a cause of SIM_RESULTS (domain/sim-health.ts).
  recent      jsonb NOT NULL DEFAULT '[]',
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (device_id, slot)
);
-- The SIMs not healthy: a handful, read every few seconds by each hub (the automatic choice skips them).
CREATE INDEX sim_health_unhealthy ON sim_health (device_id) WHERE state <> 'healthy';

-- The owner's thresholds for the phone ({consecutiveFailures, failureRatio, window, minSample,
-- coolDownSeconds}); a key missing: its default.
ALTER TABLE devices ADD COLUMN sim_health_settings jsonb NOT NULL DEFAULT '{}';
