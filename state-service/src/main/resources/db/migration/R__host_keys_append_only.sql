-- state.host_keys_append_only: its current definition, the one place to change it (ADR 0068).
-- A Flyway repeatable migration: it runs after the versioned ones whenever this file changes.
-- First created in V3__host_keys.sql (those stay as applied).
CREATE OR REPLACE FUNCTION state.host_keys_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE'
     AND OLD.removed_at IS NULL AND NEW.removed_at IS NOT NULL
     AND (NEW.id, NEW.tenant, NEW.workspace, NEW.host, NEW.port, NEW.public_key, NEW.fingerprint,
          NEW.source, NEW.run_id, NEW.actor, NEW.created_at)
         IS NOT DISTINCT FROM
         (OLD.id, OLD.tenant, OLD.workspace, OLD.host, OLD.port, OLD.public_key, OLD.fingerprint,
          OLD.source, OLD.run_id, OLD.actor, OLD.created_at)
  THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'state.host_keys is append-only: only marking an active key removed is allowed (%)', TG_OP;
END
$$;
