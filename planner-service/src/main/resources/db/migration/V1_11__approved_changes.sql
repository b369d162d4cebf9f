-- What each change of an approved plan does (docs/adr/0051): for a run applying a plan approved as
-- a whole (an approval, a saved plan, the serial the CLI showed), each change's document by
-- instance address (Plan.changeDocuments: its plan JSON entry, sensitive values left out), written
-- with the run's `applying` transition. A planner that carries the run on after a restart applies
-- what remains only when it is the approved changes not dispatched yet. Null for every other run,
-- and for runs recorded before.
ALTER TABLE planner.runs ADD COLUMN approved_changes jsonb;
