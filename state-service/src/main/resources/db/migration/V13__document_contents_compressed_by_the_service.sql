-- The bytes of a document streamed in, compressed by the service with Zstandard (docs/adr/0041).
--
-- Until now PostgreSQL compressed a streamed document of up to 16 MiB (`packed`, pglz, V11) and
-- stored a larger one uncompressed (`content`, STORAGE EXTERNAL, V10) so that a read could fetch
-- its slices without decompressing what comes before them. The service now compresses every
-- streamed document itself while it receives it (zstd level 1: several times faster than pglz and
-- smaller) and writes the result into `zstd`. PostgreSQL stores it as it is: out of line and not
-- compressed again (EXTERNAL). A read fetches the compressed bytes (whole, or in slices for a large
-- one) and the service decompresses them as it sends them, so slicing never decompresses a prefix
-- twice. Rows written before keep `content` or `packed` and are read as before; exactly one of the
-- three is set.
ALTER TABLE state.document_contents ADD COLUMN zstd bytea;
ALTER TABLE state.document_contents ALTER COLUMN zstd SET STORAGE EXTERNAL;
ALTER TABLE state.document_contents DROP CONSTRAINT document_contents_content_or_packed;
-- checking the existing rows reads their null bitmaps only (no stored value is fetched)
ALTER TABLE state.document_contents
  ADD CONSTRAINT document_contents_one_form CHECK (num_nonnulls(content, packed, zstd) = 1);
