-- Idempotency-Key on POST /api/v1/runs (docs/runs.md, ADR 0023): the public API records its keys
-- in run_request_keys too (key "api/<workspace>/<key>"), with the SHA-256 of the request body, so
-- that a retry with another body is refused instead of replayed. Null for chat-ops triggers.
ALTER TABLE planner.run_request_keys ADD COLUMN request_digest text;
