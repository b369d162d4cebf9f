-- The end of a streamed push (docs/adr/0040) in one call, sent with its COMMIT in one message.
--
-- After a push's bytes are in state.document_contents (V10, V11; written while they arrived, in
-- the push's open transaction), the push took three more round trips: the workspace's row lock
-- with the head, the writes, the commit. The decision (DocumentDecider.pushStored: lineage, serial,
-- fencing) stays in Java: the caller decides on the head it knows (cached, or read before the
-- body's bytes) and sends the decision here, which writes it only if it still holds, under the
-- workspace's state.fencing row lock (writers of a workspace serialize there, as every other
-- writer does):
--
-- * the newest fencing token is read under that lock: p_fencing_token older -> 'stale';
-- * the head is read by a statement whose snapshot is taken after the lock (a VOLATILE function
--   takes a new snapshot per statement): not p_expected_head -> 'moved';
-- * the workspace stores a document of this digest already -> 'stored' (the new content row must
--   then be dropped, which only a rollback can do: the table is append-only).
--
-- Each of these refusals RAISEs (SQLSTATE 'SC409', the detail naming which) rather than returning:
-- the caller sends "SAVEPOINT; SELECT state.push_streamed(...); COMMIT" in one message, and an
-- error makes PostgreSQL skip the rest of the message — the COMMIT — so a refusal never commits the
-- content row alone. The caller then rolls back to the savepoint (the content row stays) and takes
-- the multi-statement path (lock, head, decide again, write, commit), which answers each case as
-- before (409 for a stale token or a conflict, the existing row referenced for stored bytes).
--
-- When all hold: the state_documents row naming the content, the newer fencing token, the
-- state_pushed event at head + 1 and its version row, exactly as StateStore.storeDocumentAndEvent
-- writes them. Returns the event's sequence.
CREATE FUNCTION state.push_streamed(
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
-- plans are made once per session: without this, plpgsql may re-plan each statement per call
SET plan_cache_mode = force_generic_plan
AS $$
DECLARE
  newest bigint;
  head   bigint;
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

  INSERT INTO state.state_documents (tenant, workspace, digest, md5, size, serial, lineage,
      content_id, created_at)
    VALUES (p_tenant, p_workspace, p_digest, p_md5, p_size, p_serial, p_lineage, p_content_id,
      p_now);
  IF p_fencing_token > newest THEN
    UPDATE state.fencing SET newest_token = p_fencing_token
      WHERE tenant = p_tenant AND workspace = p_workspace;
  END IF;
  INSERT INTO state.state_events (tenant, workspace, sequence, event_id, run_id, action_id, actor,
      type, address, payload, created_at)
    VALUES (p_tenant, p_workspace, head + 1, p_event_id, NULL, NULL, p_actor, p_type, NULL,
      p_payload, p_now);
  INSERT INTO state.state_versions (tenant, workspace, sequence, serial, type, run_id, actor,
      digest, created_at)
    VALUES (p_tenant, p_workspace, head + 1, p_serial, p_type, NULL, p_actor, p_digest, p_now)
    ON CONFLICT (tenant, workspace, sequence) DO NOTHING;
  RETURN head + 1;
END
$$;

