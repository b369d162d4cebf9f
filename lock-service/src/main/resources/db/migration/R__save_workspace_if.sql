-- lock.save_workspace_if: its current definition, the one place to change it (ADR 0068).
-- A Flyway repeatable migration: it runs after the versioned ones whenever this file changes.
-- First created in V7__optimistic_save_with_row_version.sql (those stay as applied).
--
-- The optimistic save: takes the counter row FOR UPDATE and writes (lock.save_workspace) only if
-- the row's version is still p_expected_version — the version of the snapshot the caller decided on
-- — and the row lock was had within p_max_row_wait_ms of the statement's start (the decision's
-- "now" was read by the caller before it sent this, so a long wait for the row would make that
-- "now" older than the moment the row was locked; the wait is measured on the server's own clock,
-- so clock skew between the service and the database does not matter). Returns the new version
-- (>= 1) when written; -1 when the version differs or the row is missing, -2 when the row lock took
-- too long — then nothing was written and the caller decides again on freshly loaded rows.
CREATE OR REPLACE FUNCTION lock.save_workspace_if(
  p_expected_version bigint, p_max_row_wait_ms double precision,
  p_tenant text, p_workspace text,
  p_last_token bigint,
  p_lease_changed boolean, p_lock_id text, p_holder text, p_token bigint,
  p_acquired_at timestamptz, p_lease_seconds bigint, p_lease_expires_at timestamptz, p_info text,
  p_queue_changed boolean, p_q_holders text[], p_q_enqueued timestamptz[],
  p_q_seen timestamptz[], p_q_keys text[],
  p_superseded_changed boolean, p_s_holders text[], p_s_by text[], p_s_keys text[],
  p_s_at timestamptz[],
  p_at timestamptz, p_e_types text[], p_e_lock_ids text[], p_e_holders text[],
  p_e_tokens bigint[], p_e_actors text[], p_e_reasons text[], p_e_via text[],
  p_e_client_lock_ids text[])
RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  v bigint;
BEGIN
  SELECT f.version INTO v FROM lock.fencing_counters f
   WHERE f.tenant = p_tenant AND f.workspace = p_workspace FOR UPDATE;
  IF NOT FOUND OR v <> p_expected_version THEN
    RETURN -1;
  END IF;
  IF extract(epoch FROM clock_timestamp() - statement_timestamp()) * 1000 > p_max_row_wait_ms THEN
    RETURN -2;
  END IF;
  PERFORM lock.save_workspace(
    p_tenant, p_workspace, p_last_token,
    p_lease_changed, p_lock_id, p_holder, p_token, p_acquired_at, p_lease_seconds,
    p_lease_expires_at, p_info,
    p_queue_changed, p_q_holders, p_q_enqueued, p_q_seen, p_q_keys,
    p_superseded_changed, p_s_holders, p_s_by, p_s_keys, p_s_at,
    p_at, p_e_types, p_e_lock_ids, p_e_holders, p_e_tokens, p_e_actors, p_e_reasons, p_e_via,
    p_e_client_lock_ids);
  RETURN v + 1;
END
$$;
