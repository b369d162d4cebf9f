-- Coalescing: a queued request may name what it is for; a newer request with the same key takes its
-- place. The replaced holder is remembered (for the queue timeout) so it is told, not re-queued.
ALTER TABLE lock.queue ADD COLUMN coalescing_key text;

CREATE TABLE lock.superseded (
  tenant         text        NOT NULL,
  workspace      text        NOT NULL,
  holder         text        NOT NULL,
  by_holder      text        NOT NULL,
  coalescing_key text        NOT NULL,
  superseded_at  timestamptz NOT NULL,
  PRIMARY KEY (tenant, workspace, holder)
);
