-- Every run's journal (docs/adr/0032): the entries GET /api/v1/runs/{id}/logs sends (transitions,
-- action started/finished, provisioner output lines), each with its sequence (the SSE event id)
-- and exactly the JSON the stream sends (already redacted by the executor: no secret in clear).
-- Append-only, written on the run's recording lane in sequence order, one transaction per batch;
-- a redelivered batch changes nothing (ON CONFLICT DO NOTHING). Any planner instance serves a
-- run's log from here, so a client may resume with Last-Event-ID on any of them. Bounded like the
-- in-memory journal: at most 100,000 output lines per run (then one entry saying so).
CREATE TABLE planner.run_journal (
  tenant   text        NOT NULL,
  run_id   text        NOT NULL,
  sequence bigint      NOT NULL,
  kind     text        NOT NULL,
  entry    jsonb       NOT NULL,
  at       timestamptz NOT NULL,
  PRIMARY KEY (tenant, run_id, sequence)
);
