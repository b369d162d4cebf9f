-- The planner's own records (schema "planner"): workspaces and their settings, configuration
-- versions, runs and their transitions. Every row carries its tenant. The in-memory run
-- coordinator drives runs; these tables record them so that reads survive a restart.

CREATE TABLE planner.workspaces (
  tenant      text        NOT NULL,
  name        text        NOT NULL,
  auto_apply  boolean     NOT NULL DEFAULT true,
  parallelism integer     NOT NULL DEFAULT 10 CHECK (parallelism BETWEEN 1 AND 256),
  coalescing  boolean     NOT NULL DEFAULT false,
  created_at  timestamptz NOT NULL,
  updated_at  timestamptz NOT NULL,
  PRIMARY KEY (tenant, name)
);

-- Content-addressed: id = "cv-" + sha256 of the canonical file map (docs/runs.md), per tenant.
CREATE TABLE planner.configuration_versions (
  tenant        text        NOT NULL,
  id            text        NOT NULL,
  files         jsonb       NOT NULL, -- configuration files: name -> text
  support_files jsonb       NOT NULL, -- other files: relative path -> base64
  size_bytes    bigint      NOT NULL,
  created_at    timestamptz NOT NULL,
  created_by    text        NOT NULL,
  PRIMARY KEY (tenant, id)
);

CREATE TABLE planner.runs (
  tenant                text        NOT NULL,
  id                    text        PRIMARY KEY,
  workspace             text        NOT NULL,
  status                text        NOT NULL,
  status_message        text,
  message               text,       -- the requester's message
  plan_digest           text,
  created_at            timestamptz NOT NULL,
  updated_at            timestamptz NOT NULL,
  requested_by          text,
  approved_by           text,
  approved_at           timestamptz,
  configuration_version text,
  -- name -> {"sealed": SealedBox} (keyring configured) or name -> null (values not stored)
  variables             jsonb       NOT NULL DEFAULT '{}',
  instance_id           text        NOT NULL, -- the planner instance that drives it
  last_sequence         bigint      NOT NULL
);
CREATE INDEX runs_by_tenant ON planner.runs (tenant, created_at DESC, id DESC);
CREATE INDEX runs_by_workspace ON planner.runs (tenant, workspace, created_at DESC, id DESC);
CREATE INDEX runs_active ON planner.runs (instance_id)
  WHERE status NOT IN ('planned_and_finished', 'applied', 'errored', 'canceled', 'discarded');

-- Append-only: one row per lifecycle transition, in the run's event sequence.
CREATE TABLE planner.run_transitions (
  tenant   text        NOT NULL,
  run_id   text        NOT NULL REFERENCES planner.runs (id),
  sequence bigint      NOT NULL,
  status   text        NOT NULL,
  message  text,
  at       timestamptz NOT NULL,
  PRIMARY KEY (run_id, sequence)
);
