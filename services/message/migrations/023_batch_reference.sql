-- A message's batch_id is written only by the statement that inserts its batch (queue-insert.ts),
-- and the retention deletes a batch only once no message names it: the foreign key checked, for
-- every message of a send-bulk, a batch the same statement had just inserted, one lookup and row
-- lock each (a statement an SMS of the fleet's ten). The column and its index stay.
ALTER TABLE messages DROP CONSTRAINT IF EXISTS messages_batch_id_fkey;
