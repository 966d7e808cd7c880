#!/usr/bin/env bash
# Builds the SDK (and dcl's native library) once, then runs the example service:
#   java/examples/http-service/run.sh [--port 8080] [--workspace DIR] [--model mock-model]
# -Ddcl.transport=subprocess (in JAVA_OPTS) runs sessions as dcl subprocesses instead.
set -euo pipefail
JAVA_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
nice -n 10 mvn -B -q -ntp -f "$JAVA_DIR/pom.xml" -DskipTests test-compile
CARGO_TARGET="${CARGO_TARGET_DIR:-$JAVA_DIR/../target}"
exec java ${JAVA_OPTS:-} -Ddcl.cli.path="$CARGO_TARGET/debug/dcl" \
  -cp "$JAVA_DIR/target/classes:$JAVA_DIR/target/test-classes" \
  nexus.io.agent.examples.http.AgentHttpService "$@"
