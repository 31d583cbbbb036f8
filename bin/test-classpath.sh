#!/usr/bin/env bash
# Sourced by bin/fuzz and bin/soak (after bin/lib.sh): builds packetizer-tests (and what it needs) with its test classes when
# needed (tests skipped) and sets TEST_CP to the class path of packetizer-tests' tests.
core="$root/packetizer-tests/target"
cpfile="$core/test-classpath.txt"
build_if_stale "$cpfile" "$core/test-classes" -pl packetizer-tests -am install -DskipTests \
  dependency:build-classpath -Dmdep.outputFile="$cpfile" -Dmdep.includeScope=test
TEST_CP="$core/test-classes:$core/classes:$(cat "$cpfile")"
