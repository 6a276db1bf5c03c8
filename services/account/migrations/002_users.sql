-- Dashboard users: each owns one client. The password is an argon2id hash
-- (its PHC string: algorithm, parameters, salt and hash).
CREATE TABLE users (
  user_id       text PRIMARY KEY,
  email         text NOT NULL,
  password_hash text NOT NULL,
  client_id     text NOT NULL REFERENCES clients (client_id),
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email ON users (lower(email));

-- When a key was last used (written at most once a minute per key).
ALTER TABLE api_keys ADD COLUMN last_used_at timestamptz;
