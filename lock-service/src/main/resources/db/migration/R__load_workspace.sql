-- lock.load_workspace: its current definition, the one place to change it (ADR 0068).
-- A Flyway repeatable migration: it runs after the versioned ones whenever this file changes.
-- First created in V6__one_round_trip_load_and_save.sql; last restated in V7__optimistic_save_with_row_version.sql (those stay as applied).
--
-- As in V6; the 'counter' row now carries the row's version in its (otherwise empty) 'seconds'
-- column, so the result type — and the callers of V6 — stay unchanged.
CREATE OR REPLACE FUNCTION lock.load_workspace(p_tenant text, p_workspace text)
RETURNS TABLE (kind text, holder text, lock_id text, token bigint, t1 timestamptz,
               t2 timestamptz, seconds bigint, txt text, coalescing_key text)
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO lock.fencing_counters (tenant, workspace, last_token)
    VALUES (p_tenant, p_workspace, 0) ON CONFLICT (tenant, workspace) DO NOTHING;
  RETURN QUERY
    SELECT 'counter', NULL::text, NULL::text, f.last_token, NULL::timestamptz, NULL::timestamptz,
           f.version, NULL::text, NULL::text
      FROM lock.fencing_counters f
     WHERE f.tenant = p_tenant AND f.workspace = p_workspace FOR UPDATE;
  RETURN QUERY
    SELECT 'lease', l.holder, l.lock_id, l.fencing_token, l.acquired_at, l.lease_expires_at,
           l.lease_seconds, l.info, NULL::text
      FROM lock.locks l WHERE l.tenant = p_tenant AND l.workspace = p_workspace;
  RETURN QUERY
    SELECT 'queue', q.holder, NULL::text, q.position, q.enqueued_at, q.last_seen_at,
           NULL::bigint, NULL::text, q.coalescing_key
      FROM lock.queue q WHERE q.tenant = p_tenant AND q.workspace = p_workspace
     ORDER BY q.position;
  RETURN QUERY
    SELECT 'superseded', s.holder, NULL::text, NULL::bigint, s.superseded_at, NULL::timestamptz,
           NULL::bigint, s.by_holder, s.coalescing_key
      FROM lock.superseded s WHERE s.tenant = p_tenant AND s.workspace = p_workspace
     ORDER BY s.superseded_at;
END
$$;
