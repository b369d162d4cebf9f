-- A fencing-token advance moves the workspace's head (docs/adr/0052).
--
-- Invariant from here on: every change of a workspace's newest fencing token commits in the same
-- transaction as at least one new event of that workspace. An advance that writes no event of its
-- own appends one, 'fencing_advanced' (the token; the fold ignores it). So a writer that knows a
-- head h and the newest token at h (read in one snapshot, or answered by its own append) knows
-- that no takeover happened since as long as h + 1 is free: its fast append is a bare insert at
-- h + 1 (EventAppend), with no read of state.fencing. A takeover since then holds h + 1 or an
-- earlier sequence after h, so the insert conflicts and the writer falls back to
-- state.append_events, which answers 'stale' or 'moved'.
--
-- The writers that take the fencing row FOR UPDATE no longer exclude those inserts: they claim
-- their first event's sequence with ON CONFLICT DO NOTHING and, when a fast append took it,
-- answer 'moved' (an expected head was given) or read the head again and retry. The first event
-- of a multi-event append claims the sequence before the others are written, so a stream is never
-- interleaved.

-- Makes p_token the workspace's newest fencing token unless a newer one was seen (never
-- backwards), under the workspace's row lock; an actual advance appends a 'fencing_advanced' event
-- in the same transaction. Returns advanced (false: a newer token was seen, nothing written),
-- newest (the newest token after the call) and head: when advanced, the sequence at which p_token
-- is known to be the newest (its event's, or the current head when it was the newest already).
CREATE FUNCTION state.advance_fencing(
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

-- The 'fencing_advanced' event of an advance to p_token, at the head + 1 (the caller holds the
-- workspace's row lock). A fast append may take that sequence meanwhile: with p_expected_head,
-- NULL is returned (the caller answers 'moved'); without, the head is read again and the event
-- claims the next one. Returns the event's sequence. Its id is made of the workspace and the token,
-- which an advance reaches once.
CREATE FUNCTION state.append_fencing_advanced(
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
