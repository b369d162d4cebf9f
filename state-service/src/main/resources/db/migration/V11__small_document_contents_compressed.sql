-- The bytes of a document streamed in (docs/adr/0036): up to 16 MiB compressed, larger ones as before.
--
-- document_contents.content is STORAGE EXTERNAL (out of line, uncompressed, V10) so that a read can
-- fetch any slice of a large document (substring) without decompressing all that comes before it.
-- For a document a GET reads in one or two statements that buys nothing, and storing it
-- uncompressed costs about twice a default-storage (compressed) bytea write of the same bytes at
-- 1 and 10 MiB — what issue 5 measures a push against. So a streamed push of at most 16 MiB now
-- writes its bytes into `packed` (the default storage, EXTENDED: compressed when that helps, out
-- of line), a larger one into `content` as before; exactly one of the two is set. Reads take the
-- slice of whichever is set (a slice of a compressed value decompresses its prefix only).
ALTER TABLE state.document_contents ALTER COLUMN content DROP NOT NULL;
ALTER TABLE state.document_contents ADD COLUMN packed bytea;
ALTER TABLE state.document_contents
  ADD CONSTRAINT document_contents_content_or_packed CHECK ((content IS NULL) <> (packed IS NULL));
