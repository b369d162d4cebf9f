-- Expired leases are published on stagecraft.lock-events from the audit trail (an outbox): a row of
-- type 'expired' with published_at NULL is still to be published. Rows written before this
-- migration count as published (nobody waits for old expiries).
ALTER TABLE lock.lock_events ADD COLUMN published_at timestamptz;
UPDATE lock.lock_events SET published_at = at WHERE type = 'expired';
CREATE INDEX lock_events_unpublished_expiries ON lock.lock_events (id)
  WHERE type = 'expired' AND published_at IS NULL;
-- The expiry sweep looks for overdue leases.
CREATE INDEX locks_lease_expires_at ON lock.locks (lease_expires_at);
