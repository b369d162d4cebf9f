-- The bytes of a pushed state document written while they arrive (docs/adr/0031).
--
-- A push whose length is known (Content-Length) streams its body into PostgreSQL on a second
-- thread while the parser validates it, inside the push's transaction. The SHA-256 that keys
-- state.state_documents is known only after the last byte, and the store is append-only (no
-- insert-then-update), so such a push first inserts the bytes here under a generated id, then —
-- in the same transaction, once the body is valid and the push decided — the state_documents row
-- that names them by digest (content NULL, content_id set). A push that is refused, or whose
-- bytes the workspace has already (same digest), rolls back the content row: nothing is stored,
-- and the same bytes are still stored once per workspace.
--
-- A document pushed without a known length (chunked) keeps its bytes in state_documents.content,
-- as before; exactly one of content and content_id is set.
CREATE TABLE state.document_contents (
  tenant     text        NOT NULL,
  workspace  text        NOT NULL,
  content_id uuid        NOT NULL,
  content    bytea       NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (tenant, workspace, content_id)
);
-- out of line and uncompressed, as state_documents.content: a read fetches slices (substring)
ALTER TABLE state.document_contents ALTER COLUMN content SET STORAGE EXTERNAL;

CREATE FUNCTION state.forbid_content_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '%.% is append-only: % is not allowed', TG_TABLE_SCHEMA, TG_TABLE_NAME, TG_OP;
END
$$;

CREATE TRIGGER document_contents_no_update_delete BEFORE UPDATE OR DELETE
  ON state.document_contents FOR EACH ROW EXECUTE FUNCTION state.forbid_content_change();
CREATE TRIGGER document_contents_no_truncate BEFORE TRUNCATE ON state.document_contents
  FOR EACH STATEMENT EXECUTE FUNCTION state.forbid_content_change();

ALTER TABLE state.state_documents ALTER COLUMN content DROP NOT NULL;
ALTER TABLE state.state_documents ADD COLUMN content_id uuid;
ALTER TABLE state.state_documents
  ADD CONSTRAINT state_documents_content_or_content_id
    CHECK ((content IS NULL) <> (content_id IS NULL));
ALTER TABLE state.state_documents
  ADD CONSTRAINT state_documents_content_id_fkey
    FOREIGN KEY (tenant, workspace, content_id)
    REFERENCES state.document_contents (tenant, workspace, content_id);
