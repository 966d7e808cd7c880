#!/usr/bin/env bash
# The Go package (go/) over libdcl: gofmt, go vet, then `go test -race` in process and
# again with every session in a dcl child (DCL_CLI_PATH: the subprocess transport).
# Env: CARGO_TARGET_DIR (default target/), DCL_BIN (default $CARGO_TARGET_DIR/debug/dcl).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
DCL_BIN="${DCL_BIN:-$TARGET/debug/dcl}"
# --workspace, not -p: a package selection resolves other features than the workspace build
# (scripts/feature_sets.py) and compiled the dcl crates again; after `cargo build --workspace`
# (CI's first phase) this is a no-op.
cargo build -q --workspace
export CGO_LDFLAGS="-L$TARGET/debug -Wl,-rpath,$TARGET/debug"
cd "$ROOT/go"
unformatted="$(gofmt -l .)"
if [[ -n "$unformatted" ]]; then
  echo "gofmt: $unformatted" >&2
  exit 1
fi
go vet ./...
go test -race -count=1 -v ./... 2>&1 | tee "$ROOT/tests/.work/go-test.log" | grep -E '^(--- |ok|FAIL|PASS)'
DCL_CLI_PATH="$DCL_BIN" go test -count=1 -v ./... 2>&1 | tee -a "$ROOT/tests/.work/go-test.log" | grep -E '^(--- |ok|FAIL|PASS)'
