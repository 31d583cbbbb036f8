#!/usr/bin/env bash
# Sourced by bin/fuzz and bin/soak: builds packetizer-core with its test classes when needed (tests
# skipped) and sets TEST_CP to the class path of packetizer-core's tests.
core="$root/packetizer-core/target"
cpfile="$core/test-classpath.txt"
if [ ! -f "$cpfile" ] || [ ! -d "$core/test-classes" ] || [ -n "$(find "$root" -path "$root/*/target" -prune -o \( -name '*.java' -o -name 'pom.xml' \) -newer "$cpfile" -print -quit)" ]; then
  echo "$(basename "$0"): building (first run or sources changed; tests skipped) ..." >&2
  (cd "$root" && mvn -B -q -ntp -pl packetizer-core -am install -DskipTests \
      dependency:build-classpath -Dmdep.outputFile="$cpfile" -Dmdep.includeScope=test >&2) \
    || { rm -f "$cpfile"; echo "$(basename "$0"): build failed" >&2; exit 2; }
fi
TEST_CP="$core/test-classes:$core/classes:$(cat "$cpfile")"
