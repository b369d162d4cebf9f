-- The step timeout a workspace's runs give every provisioner step without a timeout of its own
-- (seconds); before it a local-exec step without one could hold an executor slot forever.
ALTER TABLE planner.workspaces ADD COLUMN step_timeout_seconds integer NOT NULL DEFAULT 3600;
