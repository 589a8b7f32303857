#!/usr/bin/env bash
# Sourced by the other scripts: exports JAVA_HOME pointing at a JDK >= 25 and puts it first on PATH.
# Takes JAVA_HOME when it already is a JDK 25+, else the newest /usr/lib/jvm/*25* (or later) JDK.
graphrt_java_major() { "$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p'; }
graphrt_pick_jdk() {
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/javac" ]; then
    local v; v=$(graphrt_java_major "$JAVA_HOME")
    if [ -n "$v" ] && [ "$v" -ge 25 ] 2>/dev/null; then echo "$JAVA_HOME"; return 0; fi
  fi
  local best="" bestv=0 d v
  for d in /usr/lib/jvm/*; do
    [ -x "$d/bin/javac" ] || continue
    v=$(graphrt_java_major "$d"); [ -n "$v" ] || continue
    if [ "$v" -ge 25 ] 2>/dev/null && [ "$v" -gt "$bestv" ]; then best=$d; bestv=$v; fi
  done
  [ -n "$best" ] && { echo "$best"; return 0; }
  return 1
}
if ! GRAPHRT_JDK=$(graphrt_pick_jdk); then
  echo "error: GraphRT needs a JDK 25 or later. Set JAVA_HOME to one, or install one under /usr/lib/jvm" \
       "(e.g. apt-get install openjdk-25-jdk-headless, or Temurin 25)." >&2
  return 1 2>/dev/null || exit 1
fi
export JAVA_HOME=$GRAPHRT_JDK
export PATH="$JAVA_HOME/bin:$PATH"
