-- state.advance_fencing: its current definition, the one place to change it (ADR 0068).
-- A Flyway repeatable migration: it runs after the versioned ones whenever this file changes.
-- First created in V14__fencing_advances_move_the_head.sql (those stay as applied).
--
-- Makes p_token the workspace's newest fencing token unless a newer one was seen (never
-- backwards), under the workspace's row lock; an actual advance appends a 'fencing_advanced' event
-- in the same transaction. Returns advanced (false: a newer token was seen, nothing written),
-- newest (the newest token after the call) and head: when advanced, the sequence at which p_token
-- is known to be the newest (its event's, or the current head when it was the newest already).
CREATE OR REPLACE FUNCTION state.advance_fencing(
  p_tenant    text,
  p_workspace text,
  p_token     bigint,
  p_run_id    text,
  p_actor     text,
  p_now       timestamptz,
  OUT advanced boolean,
  OUT newest   bigint,
  OUT head     bigint)
LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan
AS $$
BEGIN
  SELECT f.newest_token INTO newest FROM state.fencing f
    WHERE f.tenant = p_tenant AND f.workspace = p_workspace FOR UPDATE;
  IF NOT FOUND THEN
    INSERT INTO state.fencing (tenant, workspace, newest_token) VALUES (p_tenant, p_workspace, 0)
      ON CONFLICT (tenant, workspace) DO NOTHING;
    SELECT f.newest_token INTO newest FROM state.fencing f
      WHERE f.tenant = p_tenant AND f.workspace = p_workspace FOR UPDATE;
  END IF;
  IF p_token < newest THEN
    advanced := false;
    RETURN;
  END IF;
  advanced := true;
  IF p_token = newest THEN
    SELECT coalesce(max(e.sequence), 0) INTO head FROM state.state_events e
      WHERE e.tenant = p_tenant AND e.workspace = p_workspace;
    RETURN;
  END IF;
  head := state.append_fencing_advanced(p_tenant, p_workspace, p_token, NULL, p_run_id, p_actor,
    p_now);
  UPDATE state.fencing SET newest_token = p_token
    WHERE tenant = p_tenant AND workspace = p_workspace;
  newest := p_token;
END
$$;
