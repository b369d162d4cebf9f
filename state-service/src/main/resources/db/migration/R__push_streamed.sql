-- state.push_streamed: its current definition, the one place to change it (ADR 0068).
-- A Flyway repeatable migration: it runs after the versioned ones whenever this file changes.
-- First created in V12__streamed_push_ends_in_one_call.sql; last restated in V14__fencing_advances_move_the_head.sql (those stay as applied).
--
-- state.push_streamed (V12) with the same contract; its event claims head + 1 with ON CONFLICT DO
-- NOTHING, and a sequence a fast append took meanwhile is refused as 'moved' (the caller then takes
-- the multi-statement path, which reads the head again).
CREATE OR REPLACE FUNCTION state.push_streamed(
  p_tenant        text,
  p_workspace     text,
  p_expected_head bigint,
  p_fencing_token bigint,
  p_digest        text,
  p_md5           text,
  p_size          bigint,
  p_serial        bigint,
  p_lineage       text,
  p_content_id    uuid,
  p_event_id      text,
  p_actor         text,
  p_type          text,
  p_payload       jsonb,
  p_now           timestamptz)
RETURNS bigint
LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
  newest   bigint;
  head     bigint;
  inserted integer;
BEGIN
  INSERT INTO state.fencing AS f (tenant, workspace, newest_token)
    VALUES (p_tenant, p_workspace, 0)
    ON CONFLICT (tenant, workspace) DO UPDATE SET newest_token = f.newest_token
    RETURNING f.newest_token INTO newest;
  IF p_fencing_token < newest THEN
    RAISE EXCEPTION 'state.push_streamed: fencing token % is older than the newest %',
      p_fencing_token, newest USING ERRCODE = 'SC409', DETAIL = 'stale';
  END IF;
  SELECT coalesce(max(e.sequence), 0) INTO head FROM state.state_events e
    WHERE e.tenant = p_tenant AND e.workspace = p_workspace;
  IF head <> p_expected_head THEN
    RAISE EXCEPTION 'state.push_streamed: the head is % (expected %)', head, p_expected_head
      USING ERRCODE = 'SC409', DETAIL = 'moved';
  END IF;
  IF EXISTS (SELECT 1 FROM state.state_documents d
             WHERE d.tenant = p_tenant AND d.workspace = p_workspace AND d.digest = p_digest) THEN
    RAISE EXCEPTION 'state.push_streamed: document % is stored already', p_digest
      USING ERRCODE = 'SC409', DETAIL = 'stored';
  END IF;

  INSERT INTO state.state_events (tenant, workspace, sequence, event_id, run_id, action_id, actor,
      type, address, payload, created_at)
    VALUES (p_tenant, p_workspace, head + 1, p_event_id, NULL, NULL, p_actor, p_type, NULL,
      p_payload, p_now)
    ON CONFLICT DO NOTHING;
  GET DIAGNOSTICS inserted = ROW_COUNT;
  IF inserted = 0 THEN
    RAISE EXCEPTION 'state.push_streamed: sequence % was taken meanwhile', head + 1
      USING ERRCODE = 'SC409', DETAIL = 'moved';
  END IF;
  INSERT INTO state.state_documents (tenant, workspace, digest, md5, size, serial, lineage,
      content_id, created_at)
    VALUES (p_tenant, p_workspace, p_digest, p_md5, p_size, p_serial, p_lineage, p_content_id,
      p_now);
  IF p_fencing_token > newest THEN
    UPDATE state.fencing SET newest_token = p_fencing_token
      WHERE tenant = p_tenant AND workspace = p_workspace;
  END IF;
  INSERT INTO state.state_versions (tenant, workspace, sequence, serial, type, run_id, actor,
      digest, created_at)
    VALUES (p_tenant, p_workspace, head + 1, p_serial, p_type, NULL, p_actor, p_digest, p_now)
    ON CONFLICT (tenant, workspace, sequence) DO NOTHING;
  RETURN head + 1;
END
$$;
