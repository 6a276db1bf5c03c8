-- The trace of the call that created a timer: its fire is published with it
-- (`traceparent` header), so the work a timer starts belongs to that trace.
ALTER TABLE timers ADD COLUMN traceparent text;
