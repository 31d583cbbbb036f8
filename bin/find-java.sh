#!/usr/bin/env bash
# Sourced by the other scripts: exports JAVA_HOME pointing at a JDK 25 or newer.
# Order: $JAVA_HOME if it is 25+, else a JDK 25+ under /usr/lib/jvm, else a clear message.
java_major() {
  "$1/bin/java" -version 2>&1 | awk -F'"' '/version/ {split($2, v, "."); print (v[1] == "1" ? v[2] : v[1]); exit}'
}
pick_java() {
  if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
    local m; m=$(java_major "$JAVA_HOME")
    if [ -n "$m" ] && [ "$m" -ge 25 ] 2>/dev/null; then echo "$JAVA_HOME"; return 0; fi
  fi
  local d m
  for d in /usr/lib/jvm/*25* /usr/lib/jvm/*; do
    [ -x "$d/bin/java" ] && [ -x "$d/bin/javac" ] || continue
    m=$(java_major "$d")
    if [ -n "$m" ] && [ "$m" -ge 25 ] 2>/dev/null; then echo "$d"; return 0; fi
  done
  return 1
}
if ! JAVA_HOME=$(pick_java); then
  echo "error: Packetizer needs a JDK 25 or newer. Set JAVA_HOME to one, or install one under /usr/lib/jvm" >&2
  echo "       (e.g. Temurin 25: apt-get install temurin-25-jdk, or any OpenJDK 25 build)." >&2
  exit 2
fi
export JAVA_HOME
export PATH="$JAVA_HOME/bin:$PATH"
if ! command -v mvn >/dev/null 2>&1; then
  echo "error: Apache Maven (mvn) 3.8 or newer is needed to build Packetizer (apt-get install maven)." >&2
  exit 2
fi
