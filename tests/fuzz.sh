#!/usr/bin/env bash
# Short libFuzzer runs: the stdin line parser (fuzz/fuzz_targets/parse_line.rs, seeded with
# the reference transcripts' lines) and the shell analysis (fuzz_targets/shell_analysis.rs,
# seeded with the permission-attack table's command lines). `cargo fuzz run <target>` does
# the same where cargo-fuzz is installed; this script needs only stable Rust and a C++
# compiler. Env: FUZZ_SECONDS (parse_line, default 30), SHELL_FUZZ_SECONDS (default 20).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT/fuzz"
SECONDS_TO_RUN="${FUZZ_SECONDS:-30}"
SHELL_SECONDS="${SHELL_FUZZ_SECONDS:-20}"
export RUSTFLAGS="--cfg fuzzing -Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
 -Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
 -Cllvm-args=-sanitizer-coverage-trace-compares -Cdebug-assertions -Coverflow-checks"
# An explicit --target keeps the instrumentation off build scripts and proc macros.
HOST="$(rustc -vV | sed -n 's/^host: //p')"
cargo build --release --bin parse_line --bin shell_analysis --target "$HOST" --target-dir "$ROOT/target/fuzz" -q
run() {
  local target="$1" seconds="$2" max_len="$3"
  local work="$ROOT/tests/.work/fuzz-corpus/$target"
  mkdir -p "$work"
  local log="$ROOT/tests/.work/fuzz-$target.log" rc=0
  "$ROOT/target/fuzz/$HOST/release/$target" -max_total_time="$seconds" -max_len="$max_len" \
    -print_final_stats=1 -artifact_prefix="$ROOT/tests/.work/fuzz-$target-" \
    "$work" "corpus/$target" >"$log" 2>&1 || rc=$?
  if [[ $rc -ne 0 ]]; then
    # The panic message and the input that caused it, not only libFuzzer's statistics.
    grep -A2 -E "panicked at|^Test unit written to|^Base64:" "$log" || tail -n 40 "$log"
    echo "fuzz: $target failed (exit $rc); the input is in tests/.work/fuzz-$target-*"
    return "$rc"
  fi
  tail -n 12 "$log"
  echo "fuzz: $target ran ${seconds}s without a crash"
}
run parse_line "$SECONDS_TO_RUN" 8192
run shell_analysis "$SHELL_SECONDS" 512
