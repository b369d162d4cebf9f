-- state.append_events: its current definition, the one place to change it (ADR 0068).
-- A Flyway repeatable migration: it runs after the versioned ones whenever this file changes.
-- First created in V7__one_round_trip_append.sql; last restated in V14__fencing_advances_move_the_head.sql (those stay as applied).
--
-- state.append_events (V7) with the same contract, but the events' sequences are claimed, not
-- excluded: the first event is inserted alone at head + 1 (ON CONFLICT DO NOTHING), the rest after
-- it; an advance with no events of its own appends 'fencing_advanced'. The answers are V7's.
CREATE OR REPLACE FUNCTION state.append_events(
  p_tenant          text,
  p_workspace       text,
  p_expected_head   bigint,
  p_fencing_token   bigint,
  p_advance         boolean,
  p_event_ids       text[],
  p_run_id          text,
  p_action_id       text,
  p_actor           text,
  p_types           text[],
  p_addresses       text[],
  p_payloads        jsonb[],
  p_serials         bigint[],
  p_digests         text[],
  p_snapshot        jsonb,
  p_host_keys       jsonb,
  p_source_event_id text,
  p_outcome         text,
  p_outcome_serial  bigint,
  p_envelope        jsonb,
  p_now             timestamptz,
  OUT status        text,
  OUT head          bigint,
  OUT newest        bigint,
  OUT previous      text)
LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
  n integer := coalesce(array_length(p_event_ids, 1), 0);
  inserted integer;
  advancing boolean;
BEGIN
  SELECT f.newest_token INTO newest FROM state.fencing f
    WHERE f.tenant = p_tenant AND f.workspace = p_workspace FOR UPDATE;
  IF NOT FOUND THEN
    INSERT INTO state.fencing (tenant, workspace, newest_token) VALUES (p_tenant, p_workspace, 0)
      ON CONFLICT (tenant, workspace) DO NOTHING;
    SELECT f.newest_token INTO newest FROM state.fencing f
      WHERE f.tenant = p_tenant AND f.workspace = p_workspace FOR UPDATE;
  END IF;

  IF p_source_event_id IS NOT NULL THEN
    SELECT o.recorded_envelope::text INTO previous FROM state.action_outcomes o
      WHERE o.tenant = p_tenant AND (o.source_event_id = p_source_event_id
        OR (o.workspace = p_workspace AND o.run_id = p_run_id AND o.action_id = p_action_id))
      LIMIT 1;
    IF FOUND THEN
      status := 'duplicate';
      RETURN;
    END IF;
  END IF;

  IF p_fencing_token IS NOT NULL AND p_fencing_token < newest THEN
    status := 'stale';
    RETURN;
  END IF;
  advancing := p_fencing_token IS NOT NULL AND p_advance AND p_fencing_token > newest;

  IF n > 0 THEN
    LOOP
      -- the head is read by this statement, whose snapshot is taken after the row lock above (and,
      -- on a second pass, after the fast append that took the sequence committed); one statement,
      -- as V7's, whose plan stays on the primary key
      INSERT INTO state.state_events (tenant, workspace, sequence, event_id, run_id, action_id,
          actor, type, address, payload, created_at)
        SELECT p_tenant, p_workspace, h.head + 1, p_event_ids[1], p_run_id, p_action_id, p_actor,
            p_types[1], p_addresses[1], p_payloads[1], p_now
          FROM (SELECT coalesce(max(e.sequence), 0) AS head FROM state.state_events e
                  WHERE e.tenant = p_tenant AND e.workspace = p_workspace) h
          WHERE p_expected_head IS NULL OR h.head = p_expected_head
        ON CONFLICT DO NOTHING
        RETURNING sequence - 1 INTO head;
      EXIT WHEN FOUND;
      SELECT e.sequence INTO head FROM state.state_events e
        WHERE e.tenant = p_tenant AND e.event_id = p_event_ids[1];
      IF FOUND THEN
        status := 'duplicate';
        RETURN;
      END IF;
      IF p_expected_head IS NOT NULL THEN
        SELECT coalesce(max(e.sequence), 0) INTO head FROM state.state_events e
          WHERE e.tenant = p_tenant AND e.workspace = p_workspace;
        status := 'moved';
        RETURN;
      END IF;
      -- a fast append took the sequence: read the head again
    END LOOP;
    IF n > 1 THEN
      -- no other writer can take these: a fast append needs head + 1 committed to write after it
      INSERT INTO state.state_events (tenant, workspace, sequence, event_id, run_id, action_id,
          actor, type, address, payload, created_at)
        SELECT p_tenant, p_workspace, head + i, p_event_ids[i], p_run_id, p_action_id, p_actor,
            p_types[i], p_addresses[i], p_payloads[i], p_now
          FROM generate_series(2, n) i
        ON CONFLICT DO NOTHING;
      GET DIAGNOSTICS inserted = ROW_COUNT;
      IF inserted <> n - 1 THEN
        RAISE EXCEPTION 'state.append_events: % of % event ids (from %) were taken already',
          n - 1 - inserted, n, p_event_ids[1] USING ERRCODE = 'unique_violation';
      END IF;
    END IF;
    head := head + n;
    IF p_serials IS NOT NULL THEN
      INSERT INTO state.state_versions (tenant, workspace, sequence, serial, type, run_id, actor,
          digest, created_at)
        SELECT p_tenant, p_workspace, head - n + i, p_serials[i], p_types[i], p_run_id, p_actor,
            p_digests[i], p_now
          FROM generate_series(1, n) i WHERE p_serials[i] IS NOT NULL
        ON CONFLICT (tenant, workspace, sequence) DO NOTHING;
    END IF;
  ELSIF advancing THEN
    head := state.append_fencing_advanced(p_tenant, p_workspace, p_fencing_token,
      p_expected_head, p_run_id, p_actor, p_now);
    IF head IS NULL THEN
      SELECT coalesce(max(e.sequence), 0) INTO head FROM state.state_events e
        WHERE e.tenant = p_tenant AND e.workspace = p_workspace;
      status := 'moved';
      RETURN;
    END IF;
  ELSE
    SELECT coalesce(max(e.sequence), 0) INTO head FROM state.state_events e
      WHERE e.tenant = p_tenant AND e.workspace = p_workspace;
    IF p_expected_head IS NOT NULL AND p_expected_head <> head THEN
      status := 'moved';
      RETURN;
    END IF;
  END IF;

  IF p_snapshot IS NOT NULL AND n > 0 THEN
    INSERT INTO state.state_snapshots (tenant, workspace, sequence, state, created_at)
      VALUES (p_tenant, p_workspace, head, p_snapshot, p_now)
      ON CONFLICT (tenant, workspace, sequence) DO NOTHING;
  END IF;

  IF p_host_keys IS NOT NULL THEN
    INSERT INTO state.host_keys (tenant, workspace, host, port, public_key, fingerprint, source,
        run_id, actor, created_at)
      SELECT p_tenant, p_workspace, k.host, k.port, k.public_key, k.fingerprint, 'first-use',
          p_run_id, NULL, p_now
        FROM jsonb_to_recordset(p_host_keys) AS k(host text, port integer, public_key text,
          fingerprint text)
      ON CONFLICT (tenant, workspace, host, port)
        WHERE source = 'first-use' AND removed_at IS NULL DO NOTHING;
  END IF;

  IF advancing THEN
    UPDATE state.fencing SET newest_token = p_fencing_token
      WHERE tenant = p_tenant AND workspace = p_workspace;
    newest := p_fencing_token;
  END IF;

  IF p_outcome IS NOT NULL THEN
    INSERT INTO state.action_outcomes (tenant, workspace, run_id, action_id, source_event_id,
        outcome, serial, recorded_envelope, created_at)
      VALUES (p_tenant, p_workspace, p_run_id, p_action_id, p_source_event_id, p_outcome,
        p_outcome_serial, p_envelope, p_now);
  END IF;
  status := 'appended';
END
$$;
