-- One database round trip to load a workspace's lock under its row lock, and one to write what a
-- decision changed (ADR 0020). Both are plain data access: the decision itself stays in Java
-- (LockDecider). Each statement inside a plpgsql function takes a new snapshot (READ COMMITTED),
-- so the counter row inserted by a concurrent first command is seen by the FOR UPDATE after the
-- insert has waited for it — the same guarantee as the separate statements these replace.

-- Rows, in this order: one 'counter' row (token = last issued token, taken FOR UPDATE), at most one
-- 'lease' row, the 'queue' rows by position, the 'superseded' rows by time.
CREATE FUNCTION lock.load_workspace(p_tenant text, p_workspace text)
RETURNS TABLE (kind text, holder text, lock_id text, token bigint, t1 timestamptz,
               t2 timestamptz, seconds bigint, txt text, coalescing_key text)
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO lock.fencing_counters (tenant, workspace, last_token)
    VALUES (p_tenant, p_workspace, 0) ON CONFLICT (tenant, workspace) DO NOTHING;
  RETURN QUERY
    SELECT 'counter', NULL::text, NULL::text, f.last_token, NULL::timestamptz, NULL::timestamptz,
           NULL::bigint, NULL::text, NULL::text
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

-- Writes what a decision changed, in the caller's transaction (after load_workspace took the row
-- lock). NULL p_last_token: counter unchanged; p_lease_changed with NULL p_lock_id: no lease now;
-- the queue and superseded notes are replaced when their flag is set; audit rows are appended in
-- array order.
CREATE FUNCTION lock.save_workspace(
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
  IF p_last_token IS NOT NULL THEN
    UPDATE lock.fencing_counters SET last_token = p_last_token
     WHERE tenant = p_tenant AND workspace = p_workspace AND last_token <= p_last_token;
  END IF;
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
