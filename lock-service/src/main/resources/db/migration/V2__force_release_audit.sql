-- Force-unlock is audited with who forced it and why (lock_events type 'force_released').
-- Columns only: existing rows are not touched (they keep NULL).
ALTER TABLE lock.lock_events ADD COLUMN actor text;
ALTER TABLE lock.lock_events ADD COLUMN reason text;
