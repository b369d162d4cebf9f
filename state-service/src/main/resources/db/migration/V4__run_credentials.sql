-- Per-run state credentials (docs/adr/0013): one row per run of a workspace, minted when the run
-- took the workspace lock. Only the SHA-256 of the credential is stored. A credential is usable
-- while active (revoked_at null) and while its fencing token is still the workspace's newest.
CREATE TABLE state.run_credentials (
  tenant          text        NOT NULL,
  workspace       text        NOT NULL,
  run_id          text        NOT NULL,
  credential_hash text        NOT NULL UNIQUE,
  fencing_token   bigint      NOT NULL,
  created_at      timestamptz NOT NULL,
  revoked_at      timestamptz,
  PRIMARY KEY (tenant, workspace, run_id)
);
