-- The suppression list (issue 24): numbers that asked to receive nothing more
-- from a client, per mode (a test key's STOP never touches live sends). A
-- send to one of them is stored `failed` / OPTED_OUT at once. The send path
-- looks numbers up by the primary key, all the numbers of a statement at once.
CREATE TABLE opt_outs (
  client_id    text NOT NULL,
  mode         text NOT NULL CHECK (mode IN ('live', 'test')),
  phone_number text NOT NULL,
  -- 'keyword' (the number sent one), 'api', 'dashboard'.
  source       text NOT NULL CHECK (source IN ('keyword', 'api', 'dashboard')),
  -- The keyword it sent, for source 'keyword'.
  keyword      text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (client_id, mode, phone_number)
);

-- The list's pages, newest first.
CREATE INDEX opt_outs_list ON opt_outs (client_id, mode, created_at DESC, phone_number);

-- A client's keywords and OTP rule; no row: the defaults (opt-out STOP,
-- STOPALL, UNSUBSCRIBE, ARRET; start START; OTPs ignore the list). Keywords
-- are stored normalised (upper case, no accents, single spaces).
CREATE TABLE opt_out_settings (
  client_id           text PRIMARY KEY,
  opt_out_keywords    text[] NOT NULL,
  start_keywords      text[] NOT NULL,
  otp_ignores_opt_out boolean NOT NULL DEFAULT true,
  updated_at          timestamptz NOT NULL DEFAULT now()
);
