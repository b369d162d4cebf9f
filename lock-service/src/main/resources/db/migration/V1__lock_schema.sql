-- Last fencing token issued per workspace. Tokens strictly increase and are never reused, even
-- after release. The row is also the workspace's mutex: every decision takes it FOR UPDATE first,
-- so two lock-service instances can never grant the same lock.
CREATE TABLE lock.fencing_counters (
  tenant     text   NOT NULL,
  workspace  text   NOT NULL,
  last_token bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (tenant, workspace)
);

-- The current holder (at most one per workspace).
CREATE TABLE lock.locks (
  tenant           text        NOT NULL,
  workspace        text        NOT NULL,
  lock_id          text        NOT NULL UNIQUE,
  holder           text        NOT NULL,
  fencing_token    bigint      NOT NULL,
  acquired_at      timestamptz NOT NULL,
  lease_seconds    bigint      NOT NULL,
  lease_expires_at timestamptz NOT NULL,
  info             text,
  PRIMARY KEY (tenant, workspace)
);

-- Holders waiting for the lock, FIFO by position.
CREATE TABLE lock.queue (
  tenant       text        NOT NULL,
  workspace    text        NOT NULL,
  holder       text        NOT NULL,
  position     bigint      NOT NULL,
  enqueued_at  timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  PRIMARY KEY (tenant, workspace, holder)
);

-- Audit trail: acquired, released, expired, enqueued, abandoned.
CREATE TABLE lock.lock_events (
  id            bigserial   PRIMARY KEY,
  tenant        text        NOT NULL,
  workspace     text        NOT NULL,
  type          text        NOT NULL,
  lock_id       text,
  holder        text        NOT NULL,
  fencing_token bigint,
  at            timestamptz NOT NULL
);
CREATE INDEX lock_events_workspace ON lock.lock_events (tenant, workspace, id);
