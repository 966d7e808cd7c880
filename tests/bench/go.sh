#!/usr/bin/env bash
# Go in process vs the dcl subprocess, one run (go/bench): time to first message, per-turn
# overhead, PSS of N open sessions. Libraries of the debug build unless CARGO_OUT=release
# (then: cargo build --release -p dcl-c -p dcl-cli first).
#   tests/bench/go.sh [-n 20] [-sessions 1000] [-cli-sessions 100]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
OUT="${CARGO_OUT:-debug}"
[[ "$OUT" == debug ]] && cargo build -q -p dcl-c -p dcl-cli
export CGO_LDFLAGS="-L$TARGET/$OUT -Wl,-rpath,$TARGET/$OUT"
ulimit -n 65536 2>/dev/null || true
cd "$ROOT/go"
go run ./bench -cli "$TARGET/$OUT/dcl" "$@"
