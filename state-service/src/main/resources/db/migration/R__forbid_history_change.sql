-- state.forbid_history_change: its current definition, the one place to change it (ADR 0068).
-- A Flyway repeatable migration: it runs after the versioned ones whenever this file changes.
-- First created in V1__state_schema.sql (those stay as applied).
CREATE OR REPLACE FUNCTION state.forbid_history_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'state.state_events is append-only: % is not allowed', TG_OP;
END
$$;
