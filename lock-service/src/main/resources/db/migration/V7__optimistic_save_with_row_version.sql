-- One database round trip for the common quick command (ADR 0038): the instance decides on the
-- workspace lock it last loaded or saved and sends the save with the version it decided on. Every
-- save bumps the version of the workspace's lock.fencing_counters row (the row every command takes
-- FOR UPDATE), so a save whose expected version differs would write over a change it did not see
-- and is refused instead. Counter rows are never deleted (a fencing token must never be issued
-- twice), so a version is never reused for a workspace.
ALTER TABLE lock.fencing_counters ADD COLUMN version bigint NOT NULL DEFAULT 0;

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

-- As in V6, and every call bumps the row's version by one (also for callers of V6 during a rolling
-- upgrade, so their saves are seen by the version check below). The caller holds the row lock.
CREATE OR REPLACE FUNCTION lock.save_workspace(
  p_tenant text, p_workspace text,
  p_last_token bigint,
  p_lease_changed boolean, p_lock_id text, p_holder text, p_token bigint,
  p_acquired_at timestamptz, p_lease_seconds bigint, p_lease_expires_at timestamptz, p_info text,
  p_queue_changed boolean, p_q_holders text[], p_q_enqueued timestamptz[],
  p_q_seen timestamptz[], p_q_keys text[],
  p_superseded_changed boolean, p_s_holders text[], p_s_by text[], p_s_keys text[],
  p_s_at timestamptz[],
  p_at timestamptz, p_e_types text[], p_e_lock_ids text[], p_e_holders text[],
  p_e_tokens bigint[], p_e_actors text[], p_e_reasons text[], p_e_via text[],
  p_e_client_lock_ids text[])
RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE lock.fencing_counters
     SET version = version + 1,
         last_token = CASE WHEN p_last_token IS NOT NULL AND last_token <= p_last_token
                           THEN p_last_token ELSE last_token END
   WHERE tenant = p_tenant AND workspace = p_workspace;
  IF p_lease_changed THEN
    DELETE FROM lock.locks WHERE tenant = p_tenant AND workspace = p_workspace;
    IF p_lock_id IS NOT NULL THEN
      INSERT INTO lock.locks (tenant, workspace, lock_id, holder, fencing_token, acquired_at,
                              lease_seconds, lease_expires_at, info)
      VALUES (p_tenant, p_workspace, p_lock_id, p_holder, p_token, p_acquired_at,
              p_lease_seconds, p_lease_expires_at, p_info);
    END IF;
  END IF;
  IF p_queue_changed THEN
    DELETE FROM lock.queue WHERE tenant = p_tenant AND workspace = p_workspace;
    INSERT INTO lock.queue (tenant, workspace, holder, position, enqueued_at, last_seen_at,
                            coalescing_key)
    SELECT p_tenant, p_workspace, u.h, u.n, u.e, u.s, u.k
      FROM unnest(p_q_holders, p_q_enqueued, p_q_seen, p_q_keys) WITH ORDINALITY
           AS u(h, e, s, k, n);
  END IF;
  IF p_superseded_changed THEN
    DELETE FROM lock.superseded WHERE tenant = p_tenant AND workspace = p_workspace;
    INSERT INTO lock.superseded (tenant, workspace, holder, by_holder, coalescing_key,
                                 superseded_at)
    SELECT p_tenant, p_workspace, u.h, u.b, u.k, u.a
      FROM unnest(p_s_holders, p_s_by, p_s_keys, p_s_at) AS u(h, b, k, a);
  END IF;
  IF cardinality(p_e_types) > 0 THEN
    INSERT INTO lock.lock_events (tenant, workspace, type, lock_id, holder, fencing_token, at,
                                  actor, reason, via, client_lock_id)
    SELECT p_tenant, p_workspace, u.t, u.l, u.h, u.f, p_at, u.a, u.r, u.v, u.c
      FROM unnest(p_e_types, p_e_lock_ids, p_e_holders, p_e_tokens, p_e_actors, p_e_reasons,
                  p_e_via, p_e_client_lock_ids) WITH ORDINALITY AS u(t, l, h, f, a, r, v, c, n)
     ORDER BY u.n;
  END IF;
END
$$;

-- The optimistic save: takes the counter row FOR UPDATE and writes (lock.save_workspace) only if
-- the row's version is still p_expected_version — the version of the snapshot the caller decided on
-- — and the row lock was had within p_max_row_wait_ms of the statement's start (the decision's
-- "now" was read by the caller before it sent this, so a long wait for the row would make that
-- "now" older than the moment the row was locked; the wait is measured on the server's own clock,
-- so clock skew between the service and the database does not matter). Returns the new version
-- (>= 1) when written; -1 when the version differs or the row is missing, -2 when the row lock took
-- too long — then nothing was written and the caller decides again on freshly loaded rows.
CREATE FUNCTION lock.save_workspace_if(
  p_expected_version bigint, p_max_row_wait_ms double precision,
  p_tenant text, p_workspace text,
  p_last_token bigint,
  p_lease_changed boolean, p_lock_id text, p_holder text, p_token bigint,
  p_acquired_at timestamptz, p_lease_seconds bigint, p_lease_expires_at timestamptz, p_info text,
  p_queue_changed boolean, p_q_holders text[], p_q_enqueued timestamptz[],
  p_q_seen timestamptz[], p_q_keys text[],
  p_superseded_changed boolean, p_s_holders text[], p_s_by text[], p_s_keys text[],
  p_s_at timestamptz[],
  p_at timestamptz, p_e_types text[], p_e_lock_ids text[], p_e_holders text[],
  p_e_tokens bigint[], p_e_actors text[], p_e_reasons text[], p_e_via text[],
  p_e_client_lock_ids text[])
RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  v bigint;
BEGIN
  SELECT f.version INTO v FROM lock.fencing_counters f
   WHERE f.tenant = p_tenant AND f.workspace = p_workspace FOR UPDATE;
  IF NOT FOUND OR v <> p_expected_version THEN
    RETURN -1;
  END IF;
  IF extract(epoch FROM clock_timestamp() - statement_timestamp()) * 1000 > p_max_row_wait_ms THEN
    RETURN -2;
  END IF;
  PERFORM lock.save_workspace(
    p_tenant, p_workspace, p_last_token,
    p_lease_changed, p_lock_id, p_holder, p_token, p_acquired_at, p_lease_seconds,
    p_lease_expires_at, p_info,
    p_queue_changed, p_q_holders, p_q_enqueued, p_q_seen, p_q_keys,
    p_superseded_changed, p_s_holders, p_s_by, p_s_keys, p_s_at,
    p_at, p_e_types, p_e_lock_ids, p_e_holders, p_e_tokens, p_e_actors, p_e_reasons, p_e_via,
    p_e_client_lock_ids);
  RETURN v + 1;
END
$$;
