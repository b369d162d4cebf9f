-- A workspace's configuration source (docs/workspaces-sources.md, ADR 0078): a git repository,
-- followed at a branch or a tag, read below a directory. A workspace without a row takes its
-- configuration from the version last uploaded to it (or from the request). The credentials
-- (an HTTPS token and its user, or an SSH deploy key) are only ever stored sealed with the
-- secrets keyring (sealed_secret: JSON {alg, kid, nonce, ciphertext}, associated data bound to
-- tenant and workspace); url_key is the URL in the form push webhooks match it by.
CREATE TABLE planner.workspace_sources (
  tenant              text        NOT NULL,
  workspace           text        NOT NULL,
  url                 text        NOT NULL,
  url_key             text        NOT NULL,
  ref                 text        NOT NULL,
  directory           text        NOT NULL DEFAULT '',
  credentials         text        NOT NULL DEFAULT 'none'
                                  CHECK (credentials IN ('none', 'https-token', 'ssh-key')),
  sealed_secret       text,
  trigger_on_any_path boolean     NOT NULL DEFAULT false,
  updated_at          timestamptz NOT NULL,
  updated_by          text        NOT NULL,
  PRIMARY KEY (tenant, workspace),
  FOREIGN KEY (tenant, workspace) REFERENCES planner.workspaces (tenant, name) ON DELETE CASCADE,
  CHECK ((credentials = 'none') = (sealed_secret IS NULL))
);

CREATE INDEX workspace_sources_followers ON planner.workspace_sources (tenant, url_key, ref);
