-- The client's SIM rule (issue 24): which SIM a phone with several sends a
-- message through when the caller names none. 'round_robin': the next SIM
-- with room; 'default': default_sim (a phone without that slot uses its first).
ALTER TABLE clients
  ADD COLUMN sim_rule text NOT NULL DEFAULT 'round_robin' CHECK (sim_rule IN ('round_robin', 'default')),
  ADD COLUMN default_sim smallint NOT NULL DEFAULT 1 CHECK (default_sim BETWEEN 1 AND 8);
