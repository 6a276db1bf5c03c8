-- The SIMs a phone reported when it last connected (protocol 4, issue 24): one object per active
-- SIM, ordered by slot, {"slot": 1..8, "carrier"?: text, "number"?: text}. Empty: unknown (an
-- agent of protocol 3 or older, or one that cannot read its SIMs).
ALTER TABLE devices ADD COLUMN sims jsonb NOT NULL DEFAULT '[]';
