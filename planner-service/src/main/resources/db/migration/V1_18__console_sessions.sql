-- Console sessions (docs/adr/0079): a signed-in browser's session, shared by every planner
-- instance behind one address. Only the hash of the session id is stored (the id lives in the
-- browser's cookie); the API token the session acts with is sealed with the secrets keyring
-- (JSON {alg, kid, nonce, ciphertext}, associated data bound to the id hash) and checked again on
-- each request, so a revoked token ends its sessions. csrf_secret is echoed in every form.
CREATE TABLE planner.console_sessions (
  id_hash      text        PRIMARY KEY,
  tenant       text        NOT NULL,
  role         text        NOT NULL,
  sealed_token text        NOT NULL,
  csrf_secret  text        NOT NULL,
  created_at   timestamptz NOT NULL,
  expires_at   timestamptz NOT NULL
);
CREATE INDEX console_sessions_expiry ON planner.console_sessions (expires_at);
