#!/bin/sh
# The executor image's entrypoint: makes the container fit for the local-exec sandbox (ADR 0060),
# then runs the executor. In a container started with CAP_SYS_ADMIN and without Docker's seccomp
# and AppArmor profiles (docker-compose.yml), bubblewrap still cannot:
#  * mount a /proc of its own inside its user namespace: the kernel allows that only while a fully
#    visible proc is mounted, and Docker masks parts of the container's /proc. So the container's
#    own proc (its pid namespace, not the host's) is mounted once more, unmasked;
#  * turn off user namespaces inside the sandbox (--disable-userns writes the namespaced
#    user.max_user_namespaces): Docker mounts /proc/sys read-only. It is made writable.
# Without CAP_SYS_ADMIN both are skipped and /health says why local-exec steps are refused.
mkdir -p /run/sandbox-proc
mount -t proc -o nosuid,nodev,noexec proc /run/sandbox-proc 2>/dev/null
mount -o remount,rw /proc/sys 2>/dev/null
exec java -XX:CompileThresholdScaling=0.1 -jar /app/executor-service-app.jar "$@"
