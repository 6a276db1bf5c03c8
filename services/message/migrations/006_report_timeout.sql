-- Messages a phone has accepted (accepted_at set) and not reported since:
-- the report-timeout job ends those that waited too long, oldest first.
CREATE INDEX messages_awaiting_report ON messages (accepted_at)
  WHERE status = 'queued' AND accepted_at IS NOT NULL;
