-- The chat-ops decisions taken (docs/adr/0055): by tenant, the event's source and its id, what a
-- `dev.stagecraft.run.decision-requested` decided, so the same event again (a redelivery after a
-- restart, a webhook retry that reaches another planner instance) gets the answer it got and
-- decides nothing. Written once per event, after the decision; kept 30 days (pruned by the
-- planner), far longer than any redelivery.
CREATE TABLE planner.run_decisions (
  tenant     text        NOT NULL,
  source     text        NOT NULL,
  event_id   text        NOT NULL,
  run_id     text        NOT NULL,
  decision   text        NOT NULL,
  status     text,
  comment    text,
  decided_at timestamptz NOT NULL,
  PRIMARY KEY (tenant, source, event_id)
);

CREATE INDEX run_decisions_decided_at ON planner.run_decisions (decided_at);
