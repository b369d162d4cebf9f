#!/bin/sh
# The sshd test target's start: a host key of its own, the authorized key from the environment.
set -eu
ssh-keygen -q -t ed25519 -N '' -f /etc/ssh/ssh_host_ed25519_key
if [ -n "${STAGECRAFT_AUTHORIZED_KEY:-}" ]; then
  printf '%s\n' "$STAGECRAFT_AUTHORIZED_KEY" > /root/.ssh/authorized_keys
  chmod 0600 /root/.ssh/authorized_keys
fi
exec /usr/sbin/sshd -D -e
