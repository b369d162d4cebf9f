# shellcheck shell=bash
# Shared by ./stagecraft, dev/test and .ci/run: find a JDK 21+ and install OS packages.
# Source it; it defines functions only.

# Prints the major version of the given java executable (8 for 1.8, 21, 25, ...), or nothing.
java_major() {
  local version
  version=$("$1" -version 2>&1 | sed -n 's/.* version "\([^"]*\)".*/\1/p' | head -n 1)
  [ -n "$version" ] || return 1
  local major=${version%%[.+-]*}
  if [ "$major" = "1" ]; then
    major=${version#1.}
    major=${major%%[.+-_]*}
  fi
  echo "$major"
}

# Prints a JAVA_HOME whose java is 21 or newer: $JAVA_HOME if good enough, else the java on PATH,
# else the newest JDK under /usr/lib/jvm. Fails with a clear message when there is none.
find_jdk() {
  local min=21 candidate major best="" best_major=0
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
    major=$(java_major "$JAVA_HOME/bin/java" || true)
    if [ -n "$major" ] && [ "$major" -ge "$min" ]; then
      echo "$JAVA_HOME"
      return 0
    fi
  fi
  if command -v java >/dev/null 2>&1; then
    candidate=$(readlink -f "$(command -v java)")
    major=$(java_major "$candidate" || true)
    if [ -n "$major" ] && [ "$major" -ge "$min" ]; then
      dirname "$(dirname "$candidate")"
      return 0
    fi
  fi
  for candidate in /usr/lib/jvm/*; do
    [ -x "$candidate/bin/java" ] || continue
    major=$(java_major "$candidate/bin/java" || true)
    if [ -n "$major" ] && [ "$major" -ge "$min" ] && [ "$major" -gt "$best_major" ]; then
      best=$candidate
      best_major=$major
    fi
  done
  if [ -n "$best" ]; then
    echo "$best"
    return 0
  fi
  echo "Stagecraft needs JDK 21+ (found none: not JAVA_HOME, not java on PATH, not under /usr/lib/jvm). Install one, e.g. apt-get install openjdk-21-jdk, or set JAVA_HOME." >&2
  return 1
}

# ensure_packages COMMAND[:PACKAGE] ...: apt-get installs PACKAGE (default: COMMAND) for each
# COMMAND that is missing (on PATH or in /usr/sbin). Needs root (or sudo) and Debian/Ubuntu.
ensure_packages() {
  local spec cmd pkg missing=()
  for spec in "$@"; do
    cmd=${spec%%:*}
    pkg=${spec#*:}
    if ! command -v "$cmd" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$cmd" ]; then
      missing+=("$pkg")
    fi
  done
  [ ${#missing[@]} -gt 0 ] || return 0
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
      sudo="sudo"
    else
      echo "Missing packages: ${missing[*]} (install them as root: apt-get install -y ${missing[*]})" >&2
      return 1
    fi
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "Missing packages: ${missing[*]} (no apt-get here; install them yourself)" >&2
    return 1
  fi
  echo "Installing ${missing[*]} ..." >&2
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >&2
}

# Prints the absolute path of the repository root (the directory holding dev/).
repo_root() {
  cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd
}

# Exports JAVA_HOME (a JDK 21+) and, on JDK 24+, silences Maven 3.8's sun.misc.Unsafe warnings.
use_jdk_for_maven() {
  JAVA_HOME=$(find_jdk) || return 1
  export JAVA_HOME
  local major
  major=$(java_major "$JAVA_HOME/bin/java" || echo 0)
  if [ "$major" -ge 24 ] && [[ "${MAVEN_OPTS:-}" != *sun-misc-unsafe-memory-access* ]]; then
    export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
  fi
}
