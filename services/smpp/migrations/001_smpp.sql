-- The SMPP server (issue 40). `submits`: the messages submitted over SMPP that asked for a
-- receipt (registered_delivery), until their final outcome; what the receipt repeats of them.
CREATE TABLE submits (
  message_id          text PRIMARY KEY,
  client_id           text NOT NULL,
  mode                text NOT NULL,
  registered_delivery smallint NOT NULL,
  source_addr         text NOT NULL DEFAULT '',
  destination_addr    text NOT NULL DEFAULT '',
  text_start          text NOT NULL DEFAULT '',
  submitted_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX submits_submitted_at ON submits (submitted_at);

-- What waits for a receiver of the client and mode: receipts and received SMS, as the deliver_sm
-- to send, in order. `dedupe_key` makes an event consumed twice one row; a row is deleted when a
-- receiver answered its deliver_sm. `leased_until`: a replica is sending it now.
CREATE TABLE pending (
  pending_id   bigserial PRIMARY KEY,
  client_id    text NOT NULL,
  mode         text NOT NULL,
  kind         text NOT NULL CHECK (kind IN ('receipt', 'received')),
  dedupe_key   text NOT NULL UNIQUE,
  pdu          jsonb NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  leased_until timestamptz
);
CREATE INDEX pending_client ON pending (client_id, mode, pending_id);
