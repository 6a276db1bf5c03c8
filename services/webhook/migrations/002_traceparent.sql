-- The trace of each event (W3C traceparent of its consumption): every
-- attempt, retries and replays included, is a span of it and sends it on to
-- the receiver in a `traceparent` header.
ALTER TABLE events ADD COLUMN traceparent text;
