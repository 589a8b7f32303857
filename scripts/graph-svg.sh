#!/usr/bin/env bash
# Renders one example graph's toDot() to docs/graph-example.svg and keeps the DOT beside it (docs/graph-example.dot):
# builds the examples module, runs dev.graphrt.examples.GraphPicture (cpu backend: a four-launch step, captured,
# replayed, checked exactly) and pipes its DOT through Graphviz. Graphviz is a tool of this script, not a dependency
# of GraphRT; when `dot` is missing it is installed on Debian as root, otherwise the script says how to get it.
# Arguments go to Maven (e.g. -o to build offline); GRAPH_SVG_NO_BUILD=1 reuses the examples jar already built.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/java-home.sh

if ! command -v dot >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "graph-svg: Graphviz's dot is missing; installing it (apt-get install -y graphviz)" >&2
    apt-get install -y graphviz >&2 || { apt-get update >&2 && apt-get install -y graphviz >&2; }
  else
    echo "error: Graphviz's dot is missing. Install it (Debian/Ubuntu: sudo apt-get install graphviz;" \
         "other systems: https://graphviz.org/download/) and run scripts/graph-svg.sh again." >&2
    exit 1
  fi
fi

if [ "${GRAPH_SVG_NO_BUILD:-}" != 1 ]; then
  scripts/mvn.sh -q -pl examples -am package -DskipTests "$@" >&2
fi

dot_file=docs/graph-example.dot
svg_file=docs/graph-example.svg
"$JAVA_HOME/bin/java" -Dguice_bytecode_gen_option=DISABLED \
  --module-path "examples/target/graphrt-examples-0.1.0-SNAPSHOT.jar:examples/target/modules" \
  --module dev.graphrt.examples/dev.graphrt.examples.GraphPicture > "$dot_file.tmp"
mv "$dot_file.tmp" "$dot_file"
dot -Tsvg "$dot_file" > "$svg_file.tmp"
mv "$svg_file.tmp" "$svg_file"
echo "graph-svg: wrote $dot_file and $svg_file" >&2
