-- Force-unlocks are published on stagecraft.lock-events from the audit trail, like expiries (V3): a
-- row of type 'force_released' with published_at NULL is still to be published. The event names
-- the lock as the caller knows it (client_lock_id: a Terraform LockInfo ID for locks taken over the
-- HTTP backend, else the lock id) and the path it came by (via: 'rest' or
-- 'terraform-http-backend'). Rows written before this migration count as published: the state
-- service published those itself.
ALTER TABLE lock.lock_events ADD COLUMN via text;
ALTER TABLE lock.lock_events ADD COLUMN client_lock_id text;
UPDATE lock.lock_events SET published_at = at WHERE type = 'force_released';
CREATE INDEX lock_events_unpublished_force_releases ON lock.lock_events (id)
  WHERE type = 'force_released' AND published_at IS NULL;
