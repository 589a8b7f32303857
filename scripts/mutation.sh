#!/usr/bin/env bash
# Mutation testing of the core (issue 30): PIT over dev.graphrt.core.lifecycle, .memory and .metadata with
# runtime-core's tests. Prints the score per package (from PIT's mutations.xml); the HTML report is in
# runtime-core/target/pit-reports. Usage: scripts/mutation.sh [extra Maven arguments]
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/mvn.sh -q install -DskipTests -Dinvoker.skip -pl runtime-api,runtime-core -am
scripts/mvn.sh -Pmutation -pl runtime-core org.pitest:pitest-maven:mutationCoverage "$@"
. scripts/java-home.sh
java scripts/MutationScores.java runtime-core/target/pit-reports/mutations.xml
