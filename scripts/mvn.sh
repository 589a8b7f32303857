#!/usr/bin/env bash
# Runs the system Maven with a JDK >= 25 selected: scripts/mvn.sh <maven arguments>
set -euo pipefail
. "$(dirname "$0")/java-home.sh"
# Maven 3.8's own Guava touches sun.misc.Unsafe; allow it quietly on JDK 25.
export MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow"
exec mvn -B "$@"
