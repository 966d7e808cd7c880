#!/usr/bin/env bash
# Builds dcl's Node addon (debug) and the @dcl/agent package, checks that the protocol
# types generated from the JSON Schema are current, and runs the package's tests
# (node --test, node/test/*.test.mjs; prints "# pass N" / "# fail N").
#   node/node_modules   npm ci from the committed package-lock.json when missing (without
#                       optional deps: no native Claude Code binary; without install scripts)
# The parity test drives the dcl CLI too: $DCL_BIN, else target/debug/dcl (built if missing).
# Env: DCL_BIN, NODE_TEST_ARGS (extra node --test arguments).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PKG="$ROOT/node"
export DCL_BIN="${DCL_BIN:-$ROOT/target/debug/dcl}"

log() { printf '[node/ci] %s\n' "$*"; }

cd "$PKG"
if [[ ! -d node_modules/@napi-rs/cli || package-lock.json -nt node_modules/.package-lock.json ]]; then
  log "npm ci (node $(node --version))"
  nice -n 10 npm ci --omit=optional --ignore-scripts --no-audit --no-fund --loglevel=error
fi

log "building the addon (debug, cargo into the workspace's target/)"
t0=$SECONDS
nice -n 10 node scripts/build-native.mjs --cargo --workspace
log "addon built in $((SECONDS - t0))s"
npm run --silent build:ts
npm run --silent check:types

if [[ ! -x "$DCL_BIN" ]]; then
  log "building $DCL_BIN for the parity test"
  (cd "$ROOT" && nice -n 10 cargo build --workspace)
fi

# shellcheck disable=SC2086
RUST_BACKTRACE=0 node --test --test-force-exit ${NODE_TEST_ARGS:-} test/*.test.mjs
# And again with every session in a dcl child driven by the same Rust host (the subprocess
# transport): the same tests, the same assertions.
# shellcheck disable=SC2086
DCL_CLI_PATH="$DCL_BIN" RUST_BACKTRACE=0 node --test --test-force-exit ${NODE_TEST_ARGS:-} test/*.test.mjs
