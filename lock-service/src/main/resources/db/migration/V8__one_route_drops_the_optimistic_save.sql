-- Lock commands have one route and one concurrency protocol (ADR 0072): every command loads the
-- workspace under its counter row's FOR UPDATE lock and saves with lock.save_workspace. The
-- optimistic save on a kept snapshot (ADR 0038, V7) has no caller any more. The counter row's
-- version column stays: lock.save_workspace still bumps it and lock.load_workspace still returns it,
-- unused, so that the functions' result types do not change under a running older instance.
DROP FUNCTION IF EXISTS lock.save_workspace_if;
