-- Per-phone sending limits and hours (issue 23). Every default means "none" (or, for the pause
-- between two SMS, "the hub's default"), so that a device of before keeps today's behaviour.
ALTER TABLE devices
  ADD COLUMN limit_per_minute integer NOT NULL DEFAULT 0 CHECK (limit_per_minute >= 0),
  ADD COLUMN limit_per_hour integer NOT NULL DEFAULT 0 CHECK (limit_per_hour >= 0),
  ADD COLUMN limit_per_day integer NOT NULL DEFAULT 0 CHECK (limit_per_day >= 0),
  ADD COLUMN min_interval_ms integer NOT NULL DEFAULT 0 CHECK (min_interval_ms >= 0),
  ADD COLUMN max_interval_ms integer NOT NULL DEFAULT 0 CHECK (max_interval_ms >= 0),
  -- "HH:MM" each, or both empty (any time); the end before the start: across midnight.
  ADD COLUMN sending_hours_start text NOT NULL DEFAULT '',
  ADD COLUMN sending_hours_end text NOT NULL DEFAULT '',
  -- IANA time zone of the phone; empty: UTC.
  ADD COLUMN time_zone text NOT NULL DEFAULT '';
