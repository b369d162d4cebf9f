-- The event-store append in one round trip (docs/adr/0021): one call appends a workspace's events
-- with the next sequence numbers, their version index rows, a snapshot when the caller made one,
-- the host keys learned on first use and the action outcome, in the caller's transaction (one
-- commit in autocommit). Every guarantee the multi-statement path had stays, checked here, under
-- the workspace's state.fencing row lock:
--
-- * writers of one workspace serialize on that row (FOR UPDATE); the head is read after the lock,
--   so sequences have no gaps and no duplicates;
-- * p_expected_head (the head the caller folded and decided at; NULL: append after the current
--   head, for a caller whose events do not depend on the state): another head -> 'moved', nothing
--   written, the caller folds again and retries;
-- * p_fencing_token (NULL: no check): older than the newest registered -> 'stale', nothing written;
--   newer and p_advance -> it becomes the newest;
-- * idempotency: by the action outcome (p_source_event_id, or the same run and action in the
--   workspace) -> 'duplicate' with the first stored state.recorded envelope; by event id (the
--   first event's id taken already) -> 'duplicate' with that event's sequence as head;
-- * append-only: the tables' triggers are unchanged (this only inserts);
-- * versions indexed when written: a version row for every event with a serial in p_serials[i];
--   its digest (p_digests[i]) may be NULL, filled in by the first listing (see below).
--
-- p_event_ids, p_types, p_addresses, p_payloads, p_serials, p_digests: one element per event.
-- Returns status ('appended' | 'duplicate' | 'moved' | 'stale'), head (after the append; the
-- current head when 'moved'; the duplicate event's sequence), newest (the workspace's newest
-- fencing token after the call) and previous (the stored envelope of a duplicate outcome).
CREATE FUNCTION state.append_events(
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
-- plans are made once per session: without this, plpgsql may re-plan each statement per call
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
  n integer := coalesce(array_length(p_event_ids, 1), 0);
  inserted integer;
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

  IF n > 0 THEN
    -- the head is read by this statement, whose snapshot is taken after the row lock above
    WITH appended AS (
      INSERT INTO state.state_events (tenant, workspace, sequence, event_id, run_id, action_id,
          actor, type, address, payload, created_at)
        SELECT p_tenant, p_workspace, h.head + i, p_event_ids[i], p_run_id, p_action_id, p_actor,
            p_types[i], p_addresses[i], p_payloads[i], p_now
          FROM (SELECT coalesce(max(e.sequence), 0) AS head FROM state.state_events e
                  WHERE e.tenant = p_tenant AND e.workspace = p_workspace) h,
               generate_series(1, n) i
          WHERE p_expected_head IS NULL OR h.head = p_expected_head
        ON CONFLICT (tenant, event_id) DO NOTHING
        RETURNING sequence)
    SELECT max(sequence), count(*) INTO head, inserted FROM appended;
    IF inserted = 0 THEN
      SELECT e.sequence INTO head FROM state.state_events e
        WHERE e.tenant = p_tenant AND e.event_id = p_event_ids[1];
      IF FOUND THEN
        status := 'duplicate';
      ELSE
        SELECT coalesce(max(e.sequence), 0) INTO head FROM state.state_events e
          WHERE e.tenant = p_tenant AND e.workspace = p_workspace;
        status := 'moved';
      END IF;
      RETURN;
    ELSIF inserted <> n THEN
      RAISE EXCEPTION 'state.append_events: % of % event ids (from %) were taken already',
        n - inserted, n, p_event_ids[1] USING ERRCODE = 'unique_violation';
    END IF;
    IF p_serials IS NOT NULL THEN
      INSERT INTO state.state_versions (tenant, workspace, sequence, serial, type, run_id, actor,
          digest, created_at)
        SELECT p_tenant, p_workspace, head - n + i, p_serials[i], p_types[i], p_run_id, p_actor,
            p_digests[i], p_now
          FROM generate_series(1, n) i WHERE p_serials[i] IS NOT NULL
        ON CONFLICT (tenant, workspace, sequence) DO NOTHING;
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

  IF p_fencing_token IS NOT NULL AND p_advance AND p_fencing_token > newest THEN
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

-- A version's digest (SHA-256 of its canonical v4 document) is no longer computed by the append:
-- it costs a render of the whole state per version. The append writes the row with a NULL digest;
-- the first listing of the workspace's versions computes the missing ones (a fold to each version)
-- and stores them. So the digest column may be NULL, and the row's one permitted change is setting
-- a NULL digest once; everything else stays append-only.
ALTER TABLE state.state_versions ALTER COLUMN digest DROP NOT NULL;

CREATE FUNCTION state.state_versions_digest_once() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.digest IS NULL AND NEW.digest IS NOT NULL
     AND (NEW.tenant, NEW.workspace, NEW.sequence, NEW.serial, NEW.type, NEW.run_id, NEW.actor,
          NEW.created_at)
         IS NOT DISTINCT FROM
         (OLD.tenant, OLD.workspace, OLD.sequence, OLD.serial, OLD.type, OLD.run_id, OLD.actor,
          OLD.created_at)
  THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'state.state_versions is append-only: only a missing digest may be filled in (%)',
    TG_OP;
END
$$;

DROP TRIGGER state_versions_no_update ON state.state_versions;
CREATE TRIGGER state_versions_no_update BEFORE UPDATE ON state.state_versions
  FOR EACH ROW EXECUTE FUNCTION state.state_versions_digest_once();
