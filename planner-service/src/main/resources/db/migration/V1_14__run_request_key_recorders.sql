-- Which planner instance incarnation recorded a trigger's idempotency key (docs/chatops.md,
-- "Redelivery"). The key is recorded before the run's first record, in another transaction: a
-- planner that halts between the two leaves a key whose run was never recorded. A redelivered
-- trigger takes such a key over (a compare-and-set on these columns) once the incarnation that
-- recorded it is dead by planner.instances, and starts the run; while it lives, the trigger waits.
-- Null in rows written before this migration and in keys of the public API.
ALTER TABLE planner.run_request_keys
  ADD COLUMN recorded_by text,
  ADD COLUMN recorded_by_incarnation text;
