#!/usr/bin/env bash
# Kotlin in process vs the dcl subprocess, one run (kotlin/bench/Bench.kt). Uses the libraries
# of the workspace's debug build unless CARGO_OUT=release (then build those first:
# cargo build --release -p dcl-uniffi -p dcl-cli).
#   kotlin/bench/run.sh [-Dbench.n=20 -Dbench.sessions=1000 -Dbench.cliSessions=100]
set -euo pipefail
DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TARGET="${CARGO_TARGET_DIR:-$DIR/../target}"
OUT="${CARGO_OUT:-debug}"
nice -n 10 mvn -B -q -ntp -f "$DIR/pom.xml" -DskipTests -Dcargo.target.dir="$TARGET" -Dcargo.out="$OUT" \
  -Duniffi.bindgen="$TARGET/debug/uniffi-bindgen" test-compile dependency:build-classpath -Dmdep.outputFile="$DIR/target/bench.cp"
ulimit -n 65536 2>/dev/null || true
exec java -Xss512k "$@" -Djna.library.path="$TARGET/$OUT" -Ddcl.cli="$TARGET/$OUT/dcl" \
  -cp "$DIR/target/classes:$DIR/target/test-classes:$(cat "$DIR/target/bench.cp")" nexus.io.agent.dcl.bench.BenchKt
