#!/usr/bin/env bash
# In-process vs subprocess in one run (release builds of libdcl_java and dcl):
#   java/bench/run.sh [iterations] [sessions...]      default: 30 100 1000
# First phase: N concurrent sessions in one JVM (default 1,000 in-process, 100 subprocess);
#   BENCH_JAVA_OPTS="-Dbench.concurrent=1000,100 -Dbench.only=concurrent" sets / limits it.
set -euo pipefail
JAVA_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CARGO_TARGET="${CARGO_TARGET_DIR:-$JAVA_DIR/../target}"
nice -n 10 mvn -B -q -ntp -f "$JAVA_DIR/pom.xml" -DskipTests -Dcargo.profile=release -Dcargo.out=release test-compile
ulimit -n 65536 2>/dev/null || true
exec java -Xss512k ${BENCH_JAVA_OPTS:-} -Ddcl.cli.path="$CARGO_TARGET/release/dcl" \
  -cp "$JAVA_DIR/target/classes:$JAVA_DIR/target/test-classes" \
  nexus.io.agent.bench.TransportBench "$@"
