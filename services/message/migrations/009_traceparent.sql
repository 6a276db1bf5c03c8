-- The W3C trace context of the request that queued each message: the hub
-- continues that trace when it hands the message to a phone, so one trace
-- follows an SMS from the API request to its last webhook.
ALTER TABLE messages ADD COLUMN traceparent text;
