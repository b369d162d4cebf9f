-- state.forbid_document_change: its current definition, the one place to change it (ADR 0068).
-- A Flyway repeatable migration: it runs after the versioned ones whenever this file changes.
-- First created in V6__state_documents.sql (those stay as applied).
CREATE OR REPLACE FUNCTION state.forbid_document_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'state.state_documents is append-only: % is not allowed', TG_OP;
END
$$;
