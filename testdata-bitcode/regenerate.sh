#!/usr/bin/env bash
# Recompiles the test kernels with the bundled clang and rewrites the manifest:
#   src/main/c/**/*.c  ->  src/main/bc/**/*.bc  and  src/main/manifest/manifest.json
# Run it after editing a kernel; commit the .c, .bc and manifest.json together.
# Extra arguments go to the builder, e.g. --check (compare only, exit 1 when stale).
# MVN_ARGS may add Maven options (e.g. MVN_ARGS=-o to build offline).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)

# A JDK 25 or newer: $JAVA_HOME if it is one, else one under /usr/lib/jvm.
java_major() {
  "$1/bin/java" -version 2>&1 | awk -F'"' '/version/ {split($2, v, "."); print (v[1] == "1" ? v[2] : v[1]); exit}'
}
jdk=""
if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ] && [ "$(java_major "$JAVA_HOME")" -ge 25 ] 2>/dev/null; then
  jdk=$JAVA_HOME
else
  for d in /usr/lib/jvm/*25* /usr/lib/jvm/*; do
    if [ -x "$d/bin/javac" ] && [ "$(java_major "$d")" -ge 25 ] 2>/dev/null; then jdk=$d; break; fi
  done
fi
if [ -z "$jdk" ]; then
  echo "regenerate.sh: needs a JDK 25 or newer: set JAVA_HOME to one or install one under /usr/lib/jvm" >&2
  exit 2
fi
export JAVA_HOME=$jdk
command -v mvn >/dev/null || { echo "regenerate.sh: needs Apache Maven (mvn) on PATH" >&2; exit 2; }

# Compile packetizer-testkit (which holds the builder) and list its run-time class path.
cp_file="$root/packetizer-testkit/target/testdata-builder.classpath"
(cd "$root" && mvn -B -q -ntp ${MVN_ARGS:-} -pl packetizer-testkit -am -Dmaven.test.skip=true compile \
  dependency:build-classpath -Dmdep.includeScope=runtime -Dmdep.outputFile="$cp_file" >&2)

# clang runs in src/main/c with relative paths: the output does not depend on where the repository is.
cd "$here/src/main/c"
exec "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED \
  -cp "$root/packetizer-testkit/target/classes:$(cat "$cp_file")" \
  org.packetizer.core.toolchain.TestdataBuilder --source . --bitcode ../bc --manifest ../manifest/manifest.json "$@"
