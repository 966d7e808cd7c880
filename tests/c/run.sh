#!/usr/bin/env bash
# The C ABI from C: builds libdcl (bindings/c), compiles bindings/c/examples/query.c with
# AddressSanitizer (leak checking on) and runs it on the mock model.
# Env: CARGO_TARGET_DIR (default target/), CC (default cc).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
OUT="$ROOT/tests/.work/c"
mkdir -p "$OUT"
# --workspace, not -p: a package selection resolves other features than the workspace build
# (scripts/feature_sets.py) and compiled the dcl crates again; after `cargo build --workspace`
# (CI's first phase) this is a no-op.
cargo build -q --workspace
"${CC:-cc}" -std=c11 -Wall -Wextra -Werror -g -fsanitize=address,undefined -fno-omit-frame-pointer \
  -o "$OUT/query" "$ROOT/bindings/c/examples/query.c" \
  -I"$ROOT/bindings/c/include" -L"$TARGET/debug" -ldcl -Wl,-rpath,"$TARGET/debug"
# Leaks are checked at exit; dcl's runtime threads are still parked then, which is not a leak.
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=halt_on_error=1 "$OUT/query"
