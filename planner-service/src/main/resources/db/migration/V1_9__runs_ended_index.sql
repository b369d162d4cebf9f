-- The runs RunJournalRetention looks for (docs/adr/0039): ended runs (terminal status) whose end
-- (updated_at, the time of their terminal transition) is older than the run log retention. The
-- predicate is exactly the status list of its query, so PostgreSQL can use this partial index for
-- it; unfinished runs (already indexed by runs_active) are not in it.
--
-- A plain CREATE INDEX, not CONCURRENTLY: Flyway runs each migration in a transaction, and
-- CREATE INDEX CONCURRENTLY cannot run inside one (it would need this script marked
-- non-transactional, and a failed concurrent build leaves an INVALID index that a rerun of the
-- migration would not repair). The plain build blocks writes to planner.runs while it reads the
-- table once — one row per run, so a short pause at the upgrade, taken while this instance has not
-- started serving yet; other instances still running write their run records on their recording
-- lanes, off the runs' paths, and only wait that long. An operator with a very large planner.runs
-- can create the index CONCURRENTLY by hand before upgrading: IF NOT EXISTS then skips it here.
CREATE INDEX IF NOT EXISTS runs_ended ON planner.runs (updated_at)
  WHERE status IN ('planned_and_finished', 'applied', 'errored', 'canceled', 'discarded');
