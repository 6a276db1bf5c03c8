-- A campaign's file between its upload and its send (issue 36): kept here, by
-- the service that owns campaigns, rather than in the shared Redis. The file
-- is the dashboard's to read; this service only keeps it, within each
-- client's caps, until `expires_at`. An expired row is never answered and is
-- deleted at the client's next upload or by the retention.
CREATE TABLE campaign_uploads (
  upload_id   text PRIMARY KEY,
  client_id   text NOT NULL,
  mode        text NOT NULL CHECK (mode IN ('live', 'test')),
  name        text NOT NULL,
  file_name   text NOT NULL,
  headers     text[] NOT NULL,
  row_count   integer NOT NULL CHECK (row_count >= 0),
  content     bytea NOT NULL,
  byte_size   integer NOT NULL CHECK (byte_size >= 0),
  created_at  timestamptz NOT NULL DEFAULT now(),
  expires_at  timestamptz NOT NULL
);
CREATE INDEX campaign_uploads_client ON campaign_uploads (client_id, mode, created_at DESC);
CREATE INDEX campaign_uploads_expiry ON campaign_uploads (expires_at);
