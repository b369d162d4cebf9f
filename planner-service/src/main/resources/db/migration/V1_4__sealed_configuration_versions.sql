-- Configuration versions sealed at rest (docs/adr/0024): with a secrets keyring, the files of a
-- version are stored as one AES-256-GCM box (JSON {alg, kid, nonce, ciphertext}, associated data
-- bound to tenant and version id) and files / support_files stay '{}'. Rows written before, or
-- without a keyring, have sealed_content null and their files in clear; both are readable.
ALTER TABLE planner.configuration_versions ADD COLUMN sealed_content text;
