-- A batch whose messages all have one text (a send-bulk) stores it once in message_texts, keyed by
-- the batch's id with `batch` set; every other message keeps a row of its own. The trigram index
-- then gains one text's entries for the batch instead of one per message: two fifths of
-- Postgres's work for a bulk message. The key column keeps its name, so that a replica of the
-- version before still writes its rows during an upgrade. A batch's row goes with the batch.
ALTER TABLE message_texts ADD COLUMN batch boolean NOT NULL DEFAULT false;
-- A search reads a client's batch rows here, not through the trigram index.
CREATE INDEX message_texts_batches ON message_texts (client_id, mode) WHERE batch;
