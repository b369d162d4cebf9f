-- Whole state documents (ADR 0022), stored once, byte for byte as they were pushed, apart from the
-- state_pushed event that made each the workspace's state: the event references the document by
-- its digest instead of embedding it, so a push of any size appends a small event and a pull of a
-- state that is still exactly the pushed document streams these bytes back with their MD5.
--
-- Keyed by the SHA-256 of the bytes within the workspace: pushing the same bytes again stores
-- nothing new. Append-only like the events: a document is never changed or removed ("delete
-- state" is an event). `content` is stored uncompressed out of line (STORAGE EXTERNAL): a read
-- fetches it in slices (substring) without decompressing the whole value, and a write does not
-- spend CPU compressing it.
CREATE TABLE state.state_documents (
  tenant     text        NOT NULL,
  workspace  text        NOT NULL,
  digest     text        NOT NULL,
  md5        text        NOT NULL,
  size       bigint      NOT NULL CHECK (size >= 0),
  serial     bigint      NOT NULL CHECK (serial >= 0),
  lineage    text        NOT NULL,
  content    bytea       NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (tenant, workspace, digest)
);
ALTER TABLE state.state_documents ALTER COLUMN content SET STORAGE EXTERNAL;

CREATE FUNCTION state.forbid_document_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'state.state_documents is append-only: % is not allowed', TG_OP;
END
$$;

CREATE TRIGGER state_documents_no_update_delete BEFORE UPDATE OR DELETE ON state.state_documents
  FOR EACH ROW EXECUTE FUNCTION state.forbid_document_change();
CREATE TRIGGER state_documents_no_truncate BEFORE TRUNCATE ON state.state_documents
  FOR EACH STATEMENT EXECUTE FUNCTION state.forbid_document_change();
