-- lock.save_workspace: its current definition, the one place to change it (ADR 0068).
-- A Flyway repeatable migration: it runs after the versioned ones whenever this file changes.
-- First created in V6__one_round_trip_load_and_save.sql; last restated in V7__optimistic_save_with_row_version.sql (those stay as applied).
--
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
