-- What each run was requested with (docs/runs.md "Restart", ADR 0029), so that a restarted planner
-- instance can start a run that had applied nothing again under its own id. Written on the run's
-- recording lane right after its first record, so POST /runs answers 201 only once it is durable.
-- The configuration (files and supporting files) is kept as a content-addressed configuration
-- version (sealed at rest with a keyring); variable values only sealed: name -> {"sealed": box},
-- or name -> null when no keyring was configured (the run then cannot be resumed).
CREATE TABLE planner.run_requests (
  tenant                text        NOT NULL,
  run_id                text        PRIMARY KEY REFERENCES planner.runs (id),
  workspace             text        NOT NULL,
  configuration_version text        NOT NULL,
  variables             jsonb       NOT NULL DEFAULT '{}',
  -- destroy, replace, expectedSerial, expectedDigest, requestedBy, parallelism, coalescingKey,
  -- awaitingApproval, pendingMessage
  request               jsonb       NOT NULL,
  recorded_at           timestamptz NOT NULL
);
