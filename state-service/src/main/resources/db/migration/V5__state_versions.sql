-- The version index: one row per event that made a state version (changed the serial, or replaced
-- the whole document), written in the transaction of that event with the version's serial and the
-- SHA-256 of its v4 document (canonical JSON, sorted keys). Listing versions reads this table
-- instead of folding the whole history; reading one version folds from the newest snapshot at or
-- below its sequence. Derived data like the snapshots: the events stay the truth. Append-only.
CREATE TABLE state.state_versions (
  tenant     text        NOT NULL,
  workspace  text        NOT NULL,
  sequence   bigint      NOT NULL CHECK (sequence > 0),
  serial     bigint      NOT NULL,
  type       text        NOT NULL,
  run_id     text,
  actor      text,
  digest     text        NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (tenant, workspace, sequence)
);
CREATE INDEX state_versions_serial ON state.state_versions (tenant, workspace, serial, sequence);

CREATE TRIGGER state_versions_no_update BEFORE UPDATE ON state.state_versions
  FOR EACH ROW EXECUTE FUNCTION state.forbid_snapshot_change();

-- Workspaces whose history was written before the index existed: their versions are indexed once,
-- by the first listing (under the workspace's lock), which then removes the workspace from here.
CREATE TABLE state.state_versions_backfill (
  tenant    text NOT NULL,
  workspace text NOT NULL,
  PRIMARY KEY (tenant, workspace)
);
INSERT INTO state.state_versions_backfill (tenant, workspace)
  SELECT DISTINCT tenant, workspace FROM state.state_events;
