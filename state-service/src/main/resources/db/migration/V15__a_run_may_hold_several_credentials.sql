-- A run may hold several state credentials (docs/adr/0013): each opening of the run and each mint
-- stores one more, and none replaces another. Two planners can open the same run at the same
-- fencing token — the one that adopted it and the one it was adopted from, waking from a pause
-- before it notices that it lost its instance lease — and the second must not take the state away
-- from the first. state.run_credentials keeps one row per run (whether it ended: revoked_at, which
-- every mint checks under that row's lock); state.run_credential_hashes one row per credential,
-- with the fencing token it was minted at. A credential is active while its run is not revoked
-- and its token is still the workspace's newest.
CREATE TABLE state.run_credential_hashes (
  credential_hash text        PRIMARY KEY,
  tenant          text        NOT NULL,
  workspace       text        NOT NULL,
  run_id          text        NOT NULL,
  fencing_token   bigint      NOT NULL,
  created_at      timestamptz NOT NULL
);

INSERT INTO state.run_credential_hashes
  (credential_hash, tenant, workspace, run_id, fencing_token, created_at)
  SELECT credential_hash, tenant, workspace, run_id, fencing_token, created_at
  FROM state.run_credentials;

CREATE INDEX run_credential_hashes_by_run
  ON state.run_credential_hashes (tenant, workspace, run_id);

ALTER TABLE state.run_credentials DROP COLUMN credential_hash;
