-- Keys with limits (issue 41): the scopes a key may use (empty, the default and
-- every key made before: every scope), the source address ranges it may call
-- from (canonical CIDR; empty: any address), its daily quota of SMS (0: none),
-- and the dashboard user who made it (null: the operator tool, or a key made
-- before creators were recorded). Constant defaults: no rewrite of the table.
ALTER TABLE api_keys
  ADD COLUMN scopes text[] NOT NULL DEFAULT '{}',
  ADD COLUMN ip_ranges text[] NOT NULL DEFAULT '{}',
  ADD COLUMN daily_quota integer NOT NULL DEFAULT 0 CHECK (daily_quota >= 0),
  ADD COLUMN created_by text;
