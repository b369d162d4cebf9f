-- Where a planner instance answers the public API (docs/adr/0050): a request to cancel, approve or
-- discard a run that another live instance drives is forwarded there. NULL when the instance was
-- started without STAGECRAFT_PLANNER_ADVERTISED_URL (such requests then answer 409, as before).
-- Written at registration, with the incarnation: a restarted process advertises anew.
ALTER TABLE planner.instances ADD COLUMN advertised_url text;
