#!/usr/bin/env bash
set -euo pipefail
for f in "$2"/*.sql; do
  psql -v ON_ERROR_STOP=1 -f "$f"
done
