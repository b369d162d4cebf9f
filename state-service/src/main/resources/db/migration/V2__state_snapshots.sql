-- Snapshots of a workspace's state: the fold of its events 1..sequence, written in the same
-- transaction as the event that reached `sequence`, so a fold can start at the newest snapshot
-- instead of the first event. Derived data: the events stay the truth, and a snapshot in a format
-- the reader does not know (`state->>'format'`) is skipped. A snapshot never changes once written
-- (UPDATE is rejected); old ones stay, and deleting any of them only makes the next fold longer.
CREATE TABLE state.state_snapshots (
  tenant     text        NOT NULL,
  workspace  text        NOT NULL,
  sequence   bigint      NOT NULL CHECK (sequence > 0),
  state      jsonb       NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (tenant, workspace, sequence)
);

CREATE FUNCTION state.forbid_snapshot_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'state.state_snapshots is append-only: % is not allowed', TG_OP;
END
$$;

CREATE TRIGGER state_snapshots_no_update BEFORE UPDATE ON state.state_snapshots
  FOR EACH ROW EXECUTE FUNCTION state.forbid_snapshot_change();
