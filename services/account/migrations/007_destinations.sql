-- Where a client's sends may go (issue 39). Empty arrays (the default, today's
-- behaviour): every country. `otp_number_types`: the special number types
-- (premium rate, shared cost, ...) OTPs may reach anyway; empty: none.
-- Constant defaults: the columns are added without rewriting the table.
ALTER TABLE clients
  ADD COLUMN sms_countries text[] NOT NULL DEFAULT '{}',
  ADD COLUMN otp_countries text[] NOT NULL DEFAULT '{}',
  ADD COLUMN otp_number_types text[] NOT NULL DEFAULT '{}';
