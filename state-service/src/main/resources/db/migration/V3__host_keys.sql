-- SSH host keys the executors trust (ADR "Host key trust"). Two kinds of row:
--
-- * source 'known-hosts', workspace NULL: a tenant-wide known host, added by a user
--   (stagecraft known-hosts add). A host:port may have several (one per key type, or while a key
--   is rotated).
-- * source 'first-use', workspace set: the key an executor accepted on first use for host:port
--   during a run of that workspace (reported in action.finished). The first one recorded wins:
--   at most one active per (tenant, workspace, host, port); later reports are ignored.
--
-- Append-only: a row is never deleted and its key data never changes. Removing a key (stagecraft
-- known-hosts remove) is a marker: removed_at/removed_by are set once, on the row itself, which
-- then stops being "active" while staying in the table as the record of what was trusted, since
-- when, by which run, and when it stopped. A trigger rejects DELETE, TRUNCATE and any UPDATE other
-- than setting that marker on an active row. Trusting a key again after removal adds a new row.
CREATE TABLE state.host_keys (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  tenant      text        NOT NULL,
  workspace   text,
  host        text        NOT NULL,
  port        integer     NOT NULL CHECK (port BETWEEN 1 AND 65535),
  public_key  text        NOT NULL,
  fingerprint text        NOT NULL,
  source      text        NOT NULL CHECK (source IN ('first-use', 'known-hosts')),
  run_id      text,
  actor       text,
  created_at  timestamptz NOT NULL,
  removed_at  timestamptz,
  removed_by  text,
  CHECK ((source = 'first-use') = (workspace IS NOT NULL))
);

-- First use: the first key recorded for a host:port in a workspace wins (ON CONFLICT DO NOTHING).
CREATE UNIQUE INDEX host_keys_first_use ON state.host_keys (tenant, workspace, host, port)
  WHERE source = 'first-use' AND removed_at IS NULL;
-- Known hosts: adding the same key twice is a no-op.
CREATE UNIQUE INDEX host_keys_known_hosts ON state.host_keys (tenant, host, port, public_key)
  WHERE source = 'known-hosts' AND removed_at IS NULL;
CREATE INDEX host_keys_tenant ON state.host_keys (tenant, host, port);

CREATE FUNCTION state.host_keys_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
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

CREATE TRIGGER host_keys_no_change BEFORE UPDATE OR DELETE ON state.host_keys
  FOR EACH ROW EXECUTE FUNCTION state.host_keys_append_only();
CREATE TRIGGER host_keys_no_truncate BEFORE TRUNCATE ON state.host_keys
  FOR EACH STATEMENT EXECUTE FUNCTION state.host_keys_append_only();
