-- An endpoint may take its events in batches: up to 100 in one POST, a JSON
-- array of the usual envelopes. Each event keeps its delivery and attempts;
-- `batch_id` names the POST of a delivery's last attempt, so that the events
-- dropped together get one alert e-mail.
ALTER TABLE endpoints ADD COLUMN batch boolean NOT NULL DEFAULT false;
ALTER TABLE deliveries ADD COLUMN batch_id text;
