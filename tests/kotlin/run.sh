#!/usr/bin/env bash
# Kotlin and Swift over libdcl_uniffi (bindings/uniffi): builds uniffi-bindgen (its own small
# graph, bindings/uniffi/bindgen), checks that the checked-in Swift sources are what it
# generates now, then `mvn verify` on kotlin/ (generates the Kotlin bindings, compiles, JUnit 5).
# libdcl_uniffi.so and dcl come from the workspace's debug build (a no-op build here when
# `cargo build --workspace` ran first, as in CI).
# Env: CARGO_TARGET_DIR (default target/); KOTLIN_LOG (default tests/.work/logs/kotlin.log).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
LOG="${KOTLIN_LOG:-$ROOT/tests/.work/logs/kotlin.log}"
mkdir -p "$(dirname "$LOG")"
cd "$ROOT"
# --workspace, not -p: a package selection resolves other features than the workspace build
# (scripts/feature_sets.py) and compiled the dcl crates again; after `cargo build --workspace`
# (CI's first phase) this is a no-op.
cargo build -q --workspace
cargo build -q --manifest-path bindings/uniffi/bindgen/Cargo.toml --target-dir "$TARGET"
UNIFFI_BINDGEN="$TARGET/debug/uniffi-bindgen" bash bindings/uniffi/swift/check.sh "$TARGET/debug/libdcl_uniffi.so"
rc=0
# Not -q: that would hide Surefire's "Tests run:" summary, which the counts come from.
mvn -B -ntp -f kotlin/pom.xml verify -Dcargo.target.dir="$TARGET" -Duniffi.bindgen="$TARGET/debug/uniffi-bindgen" >"$LOG" 2>&1 || rc=$?
grep -E 'Tests run:|FAIL|ERROR\]|BUILD' "$LOG" || true
exit "$rc"
