-- Workspace variables and variable sets (docs/workspaces.md, ADR 0078). One table of variables for
-- both owners: a workspace ('workspace', its name) or a variable set ('set', its name). A
-- sensitive value is stored only sealed (AES-256-GCM, associated data bound to tenant, owner kind,
-- owner, category and key); never in clear. Every change to an owner's variables takes the owner's
-- next version and appends an audit row, in the same transaction; the audit never holds a value.

CREATE TABLE planner.variable_sets (
  tenant      text        NOT NULL,
  name        text        NOT NULL,
  description text        NOT NULL DEFAULT '',
  global      boolean     NOT NULL DEFAULT false,
  created_at  timestamptz NOT NULL,
  created_by  text        NOT NULL,
  updated_at  timestamptz NOT NULL,
  updated_by  text        NOT NULL,
  PRIMARY KEY (tenant, name)
);

-- A set attached to chosen workspaces (a global set needs none).
CREATE TABLE planner.variable_set_workspaces (
  tenant      text        NOT NULL,
  set_name    text        NOT NULL,
  workspace   text        NOT NULL,
  attached_at timestamptz NOT NULL,
  attached_by text        NOT NULL,
  PRIMARY KEY (tenant, set_name, workspace),
  FOREIGN KEY (tenant, set_name) REFERENCES planner.variable_sets (tenant, name) ON DELETE CASCADE
);

CREATE INDEX variable_set_workspaces_by_workspace
  ON planner.variable_set_workspaces (tenant, workspace);

-- The version of each owner's variables: the number of changes made to them. Kept when a set is
-- deleted, so a set created again under the same name goes on counting (its history too).
CREATE TABLE planner.variable_versions (
  tenant     text   NOT NULL,
  owner_kind text   NOT NULL CHECK (owner_kind IN ('workspace', 'set')),
  owner      text   NOT NULL,
  version    bigint NOT NULL,
  PRIMARY KEY (tenant, owner_kind, owner)
);

CREATE TABLE planner.variables (
  tenant       text        NOT NULL,
  owner_kind   text        NOT NULL CHECK (owner_kind IN ('workspace', 'set')),
  owner        text        NOT NULL,
  category     text        NOT NULL CHECK (category IN ('terraform', 'env')),
  key          text        NOT NULL,
  -- the value in clear, only when not sensitive
  value        text,
  -- the sealed box (JSON: alg, kid, nonce, ciphertext), only when sensitive
  sealed_value text,
  hcl          boolean     NOT NULL DEFAULT false,
  sensitive    boolean     NOT NULL DEFAULT false,
  description  text        NOT NULL DEFAULT '',
  updated_at   timestamptz NOT NULL,
  updated_by   text        NOT NULL,
  PRIMARY KEY (tenant, owner_kind, owner, category, key),
  CHECK (CASE WHEN sensitive THEN value IS NULL AND sealed_value IS NOT NULL
              ELSE value IS NOT NULL AND sealed_value IS NULL END),
  CHECK (NOT (hcl AND category = 'env'))
);

-- Who changed which variable of an owner, when, and the owner's version after the change. Never the
-- value.
CREATE TABLE planner.variable_changes (
  tenant     text        NOT NULL,
  owner_kind text        NOT NULL CHECK (owner_kind IN ('workspace', 'set')),
  owner      text        NOT NULL,
  version    bigint      NOT NULL,
  key        text        NOT NULL,
  category   text        NOT NULL CHECK (category IN ('terraform', 'env')),
  change     text        NOT NULL CHECK (change IN ('set', 'unset')),
  sensitive  boolean     NOT NULL,
  changed_by text        NOT NULL,
  changed_at timestamptz NOT NULL,
  PRIMARY KEY (tenant, owner_kind, owner, version)
);
