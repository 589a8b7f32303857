#!/usr/bin/env bash
# JMH benchmarks of the core's CPU-side costs on the cpu backend (pooled alloc+free, cached-info launch,
# eager vs replayed launch). Builds first. Extra arguments go to JMH (e.g. -f 3 -wi 5).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/java-home.sh
scripts/mvn.sh -q install -DskipTests >&2
mkdir -p target
exec java -cp "examples/target/graphrt-examples-0.1.0-SNAPSHOT.jar:examples/target/modules/*" \
  org.openjdk.jmh.Main 'dev.graphrt.examples.bench.CoreOverheadBenchmark' -rf json -rff target/jmh-core.json "$@"
