-- A statement that moves many messages at once (a batch of phone reports) keeps their counts
-- itself, one upsert for all of them, and says so for its transaction with
-- `SET LOCAL smsgw.counts = 'by_statement'`: the row trigger then stands aside. Every other
-- statement still has its counts kept by the trigger, row by row.
DROP TRIGGER messages_count_move ON messages;
CREATE TRIGGER messages_count_move AFTER UPDATE OF client_id, mode, created_at, device_id, status ON messages
  FOR EACH ROW
  WHEN ((OLD.client_id, OLD.mode, OLD.created_at, OLD.device_id, OLD.status)
        IS DISTINCT FROM (NEW.client_id, NEW.mode, NEW.created_at, NEW.device_id, NEW.status)
        AND current_setting('smsgw.counts', true) IS DISTINCT FROM 'by_statement')
  EXECUTE FUNCTION message_counts_move();
