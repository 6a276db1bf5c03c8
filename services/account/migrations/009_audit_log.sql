-- The audit log (issue 41): security-relevant actions with who, when, from
-- where and what. For now the actions on API keys ('key.created',
-- 'key.revoked'). Append-only: no row is ever changed, and a row is deleted
-- only once it is a year old (the retention, run as records are written).
CREATE TABLE audit_events (
  event_id   bigserial PRIMARY KEY,
  client_id  text NOT NULL REFERENCES clients (client_id),
  at         timestamptz NOT NULL DEFAULT now(),
  -- The dashboard user who acted (null: the operator's tool), and their e-mail then.
  actor_user_id text,
  actor      text NOT NULL,
  -- The caller's address as the dashboard saw it ('' when unknown).
  address    text NOT NULL DEFAULT '',
  action     text NOT NULL,
  -- What was acted on (a key id) and what it was (label, mode, limits).
  target     text NOT NULL DEFAULT '',
  details    jsonb NOT NULL DEFAULT '{}'
);

CREATE INDEX audit_events_client_at ON audit_events (client_id, at DESC, event_id DESC);

CREATE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' AND OLD.at < now() - interval '1 year' THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'audit_events is append-only' USING ERRCODE = 'insufficient_privilege';
END;
$$;

CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events
  FOR EACH ROW EXECUTE FUNCTION audit_events_append_only();
