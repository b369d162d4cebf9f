-- state.forbid_content_change: its current definition, the one place to change it (ADR 0068).
-- A Flyway repeatable migration: it runs after the versioned ones whenever this file changes.
-- First created in V10__document_contents_streamed_before_their_digest.sql (those stay as applied).
CREATE OR REPLACE FUNCTION state.forbid_content_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '%.% is append-only: % is not allowed', TG_TABLE_SCHEMA, TG_TABLE_NAME, TG_OP;
END
$$;
