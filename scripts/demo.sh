#!/usr/bin/env bash
# The README's main job: builds GraphRT and runs the decode demo on the best available backend: a GPT-2-shaped
# token step captured once and replayed per token (the tiny model on the pure-Java cpu backend of a machine without a
# GPU). Arguments go to the demo: [backend|best] [gpt2|tiny|auto] [tokens per round] [rounds].
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/java-home.sh
[ -f .natives/webgpu.env ] && . .natives/webgpu.env
scripts/mvn.sh -q install -DskipTests >&2
exec java -Dguice_bytecode_gen_option=DISABLED \
  --enable-native-access=dev.graphrt.driver,dev.graphrt.backend.cuda,dev.graphrt.backend.hip,dev.graphrt.backend.wgpu \
  --module-path "examples/target/graphrt-examples-0.1.0-SNAPSHOT.jar:examples/target/modules" \
  --module dev.graphrt.examples/dev.graphrt.examples.gpt.GptDecodeDemo "$@"
