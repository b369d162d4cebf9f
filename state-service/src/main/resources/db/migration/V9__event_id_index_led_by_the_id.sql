-- The uniqueness of event ids per tenant, led by the event id (docs/adr/0027).
--
-- The common-case append is one plain prepared statement (EventAppend) that checks the expected
-- head with an equality lookup on (tenant, workspace, sequence). A generic plan made while the table
-- had no statistics yet (a new database) could run that lookup on the (tenant, event_id) index,
-- which matches on the tenant alone and then filters every event of the tenant: an append slowed
-- down with the size of the tenant's history until the next ANALYZE. Led by the event id, the
-- index cannot serve a lookup without an event id, so every lookup by workspace uses the primary
-- key. The constraint is the same (unique per tenant: ON CONFLICT (tenant, event_id) infers it),
-- only its column order changes.
ALTER TABLE state.state_events
  ADD CONSTRAINT state_events_event_id_tenant_key UNIQUE (event_id, tenant);
ALTER TABLE state.state_events DROP CONSTRAINT state_events_tenant_event_id_key;
