-- Tenants and their API tokens (stored only as SHA-256 hashes).
CREATE TABLE state.tenants (
  tenant     text PRIMARY KEY,
  created_at timestamptz NOT NULL
);

CREATE TABLE state.api_tokens (
  token_hash  text PRIMARY KEY,
  tenant      text NOT NULL REFERENCES state.tenants (tenant),
  role        text NOT NULL CHECK (role IN ('admin', 'deployer', 'reader')),
  description text,
  created_at  timestamptz NOT NULL,
  revoked_at  timestamptz
);
CREATE INDEX api_tokens_tenant ON state.api_tokens (tenant);

-- The append-only history of every workspace's state. The current state is a fold of these rows.
CREATE TABLE state.state_events (
  tenant     text        NOT NULL,
  workspace  text        NOT NULL,
  sequence   bigint      NOT NULL CHECK (sequence > 0),
  event_id   text        NOT NULL,
  run_id     text,
  action_id  text,
  actor      text,
  type       text        NOT NULL,
  address    text,
  payload    jsonb       NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (tenant, workspace, sequence),
  UNIQUE (tenant, event_id)
);

CREATE FUNCTION state.forbid_history_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'state.state_events is append-only: % is not allowed', TG_OP;
END
$$;

CREATE TRIGGER state_events_no_update_delete BEFORE UPDATE OR DELETE ON state.state_events
  FOR EACH ROW EXECUTE FUNCTION state.forbid_history_change();
CREATE TRIGGER state_events_no_truncate BEFORE TRUNCATE ON state.state_events
  FOR EACH STATEMENT EXECUTE FUNCTION state.forbid_history_change();

-- Newest fencing token seen per workspace. The row doubles as the workspace's write lock
-- (SELECT ... FOR UPDATE) so writes to one workspace are serialized across instances.
CREATE TABLE state.fencing (
  tenant       text   NOT NULL,
  workspace    text   NOT NULL,
  newest_token bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (tenant, workspace)
);

-- One row per action result processed (also when rejected or failed without a state change):
-- makes redelivery harmless (by envelope id and by run/action id) and lets us re-emit the exact
-- same state.recorded envelope.
CREATE TABLE state.action_outcomes (
  tenant             text        NOT NULL,
  workspace          text        NOT NULL,
  run_id             text        NOT NULL,
  action_id          text        NOT NULL,
  source_event_id    text        NOT NULL,
  outcome            text        NOT NULL,
  serial             bigint      NOT NULL,
  recorded_envelope  jsonb       NOT NULL,
  created_at         timestamptz NOT NULL,
  PRIMARY KEY (tenant, workspace, run_id, action_id),
  UNIQUE (tenant, source_event_id)
);
