#!/usr/bin/env bash
set -euo pipefail
NODE_INDEX="${1:-0}"
sudo apt-get update -y
sudo apt-get install -y curl jq
echo "bootstrapped node ${NODE_INDEX}" | sudo tee /var/log/bootstrap.log
