-- Idempotency keys of run triggers (docs/chatops.md, ADR 0016): which run each (tenant, key)
-- made. Written before the run starts; the primary key makes the first writer win across planner
-- instances. Rows are never updated or deleted.
CREATE TABLE planner.run_request_keys (
  tenant          text        NOT NULL,
  idempotency_key text        NOT NULL,
  run_id          text        NOT NULL,
  workspace       text        NOT NULL,
  recorded_at     timestamptz NOT NULL,
  PRIMARY KEY (tenant, idempotency_key)
);
