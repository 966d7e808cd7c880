#!/usr/bin/env bash
# A short libFuzzer run of the stdin line parser (fuzz/fuzz_targets/parse_line.rs),
# seeded with the reference transcripts' lines. `cargo fuzz run parse_line` does the same
# where cargo-fuzz is installed; this script needs only stable Rust and a C++ compiler.
# Env: FUZZ_SECONDS (default 30).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT/fuzz"
SECONDS_TO_RUN="${FUZZ_SECONDS:-30}"
export RUSTFLAGS="--cfg fuzzing -Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
 -Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
 -Cllvm-args=-sanitizer-coverage-trace-compares -Cdebug-assertions -Coverflow-checks"
# An explicit --target keeps the instrumentation off build scripts and proc macros.
HOST="$(rustc -vV | sed -n 's/^host: //p')"
cargo build --release --bin parse_line --target "$HOST" --target-dir "$ROOT/target/fuzz" -q
WORK="$ROOT/tests/.work/fuzz-corpus"
mkdir -p "$WORK"
"$ROOT/target/fuzz/$HOST/release/parse_line" -max_total_time="$SECONDS_TO_RUN" -max_len=8192 \
  -print_final_stats=1 "$WORK" corpus/parse_line 2>&1 | tail -n 12
echo "fuzz: parse_line ran ${SECONDS_TO_RUN}s without a crash"
