-- A removed phone (from the dashboard) is kept for the history's sake but is
-- gone for everything else: not listed, not found, cannot pair or connect.
ALTER TABLE devices ADD COLUMN removed_at timestamptz;
