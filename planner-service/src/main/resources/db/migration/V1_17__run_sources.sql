-- Where a run's configuration came from and which variables it used (docs/workspaces.md, ADR 0078):
-- source {"kind": "request"|"upload"|"git", "repository", "ref", "commit", "configurationVersion"};
-- variable_sources {"variables": [{"key", "category", "source", "sensitive"}], "versions": {...}}
-- (names and origins only, never a value). Both null for runs recorded before.
ALTER TABLE planner.runs ADD COLUMN source jsonb;
ALTER TABLE planner.runs ADD COLUMN variable_sources jsonb;

-- The configuration version last uploaded to each workspace (POST
-- /api/v1/configuration-versions?workspace=W): a run that names only its workspace uses it.
ALTER TABLE planner.workspaces ADD COLUMN latest_configuration_version text;
