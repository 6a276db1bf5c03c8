-- The audit log stays append-only against TRUNCATE too (migration 009's trigger sees rows, not
-- statements): only the year's retention (a DELETE of older rows) takes anything away.
CREATE FUNCTION audit_events_no_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_events is append-only' USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events
  FOR EACH STATEMENT EXECUTE FUNCTION audit_events_no_truncate();
