-- Planner instances and their liveness (docs/adr/0034). Not tenant data: an instance drives the runs
-- of every tenant; the runs keep their tenant in planner.runs (instance_id names the driver).
-- Every instance registers its row at startup (a new incarnation per process) and renews it every
-- STAGECRAFT_PLANNER_INSTANCE_HEARTBEAT with the database clock (now()), so host clocks do not
-- matter. An instance whose row is older than its own lease (lease_ms, as it declared) is dead:
-- another instance marks the row adopted (adopted_by, a compare-and-set on the expiry) and takes
-- its non-terminal runs in the same transaction. An instance that finds its row adopted or
-- re-registered by a newer incarnation stops at once (self-fencing).
CREATE TABLE planner.instances (
  instance_id text        PRIMARY KEY,
  incarnation text        NOT NULL, -- random per process start
  started_at  timestamptz NOT NULL,
  renewed_at  timestamptz NOT NULL, -- the database's now() at the latest renewal
  lease_ms    bigint      NOT NULL CHECK (lease_ms > 0),
  adopted_by  text,                 -- the instance that took its runs after the lease expired
  adopted_at  timestamptz
);
