-- state.append_fencing_advanced: its current definition, the one place to change it (ADR 0068).
-- A Flyway repeatable migration: it runs after the versioned ones whenever this file changes.
-- First created in V14__fencing_advances_move_the_head.sql (those stay as applied).
--
-- The 'fencing_advanced' event of an advance to p_token, at the head + 1 (the caller holds the
-- workspace's row lock). A fast append may take that sequence meanwhile: with p_expected_head,
-- NULL is returned (the caller answers 'moved'); without, the head is read again and the event
-- claims the next one. Returns the event's sequence. Its id is made of the workspace and the token,
-- which an advance reaches once.
CREATE OR REPLACE FUNCTION state.append_fencing_advanced(
  p_tenant        text,
  p_workspace     text,
  p_token         bigint,
  p_expected_head bigint,
  p_run_id        text,
  p_actor         text,
  p_now           timestamptz)
RETURNS bigint
LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
  head     bigint;
  inserted integer;
BEGIN
  LOOP
    SELECT coalesce(max(e.sequence), 0) INTO head FROM state.state_events e
      WHERE e.tenant = p_tenant AND e.workspace = p_workspace;
    IF p_expected_head IS NOT NULL AND head <> p_expected_head THEN
      RETURN NULL;
    END IF;
    INSERT INTO state.state_events (tenant, workspace, sequence, event_id, run_id, action_id,
        actor, type, address, payload, created_at)
      VALUES (p_tenant, p_workspace, head + 1, 'fencing:' || p_workspace || ':' || p_token,
        p_run_id, NULL, p_actor, 'fencing_advanced', NULL,
        jsonb_build_object('fencingToken', p_token), p_now)
      ON CONFLICT DO NOTHING;
    GET DIAGNOSTICS inserted = ROW_COUNT;
    IF inserted = 1 THEN
      RETURN head + 1;
    END IF;
    IF EXISTS (SELECT 1 FROM state.state_events e WHERE e.tenant = p_tenant
               AND e.event_id = 'fencing:' || p_workspace || ':' || p_token) THEN
      RAISE EXCEPTION 'state.append_fencing_advanced: token % of %/% was advanced to already',
        p_token, p_tenant, p_workspace USING ERRCODE = 'unique_violation';
    END IF;
  END LOOP;
END
$$;
