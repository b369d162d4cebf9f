-- state.state_versions_digest_once: its current definition, the one place to change it (ADR 0068).
-- A Flyway repeatable migration: it runs after the versioned ones whenever this file changes.
-- First created in V7__one_round_trip_append.sql (those stay as applied).
CREATE OR REPLACE FUNCTION state.state_versions_digest_once() RETURNS trigger LANGUAGE plpgsql AS $$
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
