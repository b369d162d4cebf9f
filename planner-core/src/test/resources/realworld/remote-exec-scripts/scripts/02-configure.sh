#!/bin/sh
sudo -u postgres psql -c "ALTER SYSTEM SET listen_addresses = '*'"
sudo systemctl restart postgresql
