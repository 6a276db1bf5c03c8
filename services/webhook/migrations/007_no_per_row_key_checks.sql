-- The foreign keys of deliveries (to events) and of attempts (to deliveries) checked every row
-- written on the path of an SMS, a `SELECT ... FOR KEY SHARE` each: about 2.2 statements an SMS
-- each, for rows the same code had just written or locked. What they guarded is now the code's:
-- - a delivery is inserted only in the transaction that inserted its event or, for an event stored
--   before (a redelivery, a replay), locked it (`ON CONFLICT ... DO UPDATE ... WHERE false`), so the
--   retention cannot delete the event under it;
-- - an attempt is inserted only by the statement that updates or locks its delivery
--   (`recordOutcomes`), never for a delivery that is gone;
-- - the retention (`deleteOlderThan`) deletes an event's deliveries and their attempts itself, each
--   in its own statement of one transaction, after the events, so that it sees every row written
--   by a writer it waited for: no orphan remains. It was the only deletion; the cascades went with
--   the keys. The indexes that served the keys stay: the retention reads them.
ALTER TABLE attempts DROP CONSTRAINT IF EXISTS attempts_delivery_id_fkey;
ALTER TABLE deliveries DROP CONSTRAINT IF EXISTS deliveries_event_id_fkey;
