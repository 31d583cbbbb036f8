#!/usr/bin/env bash
# Sourced by every script in bin/ after it has set $root (the checkout): finds a JDK 25 (find-java.sh)
# and holds the one staleness check and build step they share.
. "$root/bin/find-java.sh"

# sources_newer_than STAMP: true when STAMP is missing or a build input outside target/ (Java source,
# pom.xml, committed bitcode, kernel manifest, C source or header) is newer than it.
sources_newer_than() {
  [ -e "$1" ] || return 0
  [ -n "$(find "$root" \( -path "$root/*/target" -o -path "$root/.git" \) -prune -o \
      \( -name '*.java' -o -name 'pom.xml' -o -name '*.bc' -o -name '*.json' -o -name '*.c' -o -name '*.h' \) \
      -newer "$1" -print -quit)" ]
}

# build_if_stale STAMP NEEDED_DIR MAVEN_ARGS...: when STAMP is stale or NEEDED_DIR is missing, runs
# Maven quietly with MAVEN_ARGS (tests skipped by the caller's arguments; $MVN_ARGS appended) and
# touches STAMP; on failure removes STAMP and exits 2. Messages carry the calling script's name.
build_if_stale() {
  local stamp=$1 needed=$2 who; who=$(basename "$0"); shift 2
  if sources_newer_than "$stamp" || [ ! -d "$needed" ]; then
    echo "$who: building (first run or sources changed; tests skipped) ..." >&2
    if ! (cd "$root" && mvn -B -q -ntp "$@" ${MVN_ARGS:-} >&2); then
      rm -f "$stamp"; echo "$who: build failed" >&2; exit 2
    fi
    touch "$stamp"
  fi
}

# The command-line tool's class path (after build_if_stale on packetizer-cli).
cli_classpath() { echo "$root/packetizer-cli/target/classes:$root/packetizer-cli/target/lib/*"; }
