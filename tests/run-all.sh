#!/usr/bin/env bash
# The one test command: build, Rust tests, then the SDK conformance suites.
# Stops at the first failing phase and prints a summary of the phases run.
# Assumes `bash tests/setup.sh` has been run (venv + node_modules).
# Env: DCL_BIN (default target/debug/dcl), CONFORMANCE_TIMEOUT (seconds per suite, default 900),
#      SKIP_CARGO=1 (skip build and cargo test: for iterating on the suites only).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

export DCL_BIN="${DCL_BIN:-$ROOT/target/debug/dcl}"
SUITE_TIMEOUT="${CONFORMANCE_TIMEOUT:-900}"
VENV_PY="$ROOT/tests/.work/venv/bin/python"
NODEDIR="$ROOT/tests/conformance/node"

SUMMARY=()
CURRENT=""
START_ALL=$SECONDS

summary() {
  local rc=$?
  if [[ -n "$CURRENT" ]]; then
    SUMMARY+=("$(printf '%-22s FAILED (exit %d)' "$CURRENT" "$rc")")
  fi
  echo
  echo "==================== run-all summary ===================="
  local line
  for line in "${SUMMARY[@]}"; do echo "  $line"; done
  if [[ $rc -eq 0 ]]; then
    echo "  result: all phases passed in $((SECONDS - START_ALL))s"
  else
    echo "  result: FAILED in phase '$CURRENT' after $((SECONDS - START_ALL))s"
  fi
  echo "========================================================="
}
trap summary EXIT

phase() {
  local name="$1"
  shift
  CURRENT="$name"
  echo
  echo "==> [$name] $*"
  local t0=$SECONDS
  "$@"
  SUMMARY+=("$(printf '%-22s ok (%ds)' "$name" "$((SECONDS - t0))")")
  CURRENT=""
}

smoke() {
  # The brief's hand check: one user line in, a result line out, exit 0.
  local out
  out=$(printf '%s\n' '{"type":"user","message":{"role":"user","content":"hi"}}' |
    timeout 60 "$DCL_BIN" --input-format stream-json --output-format stream-json --model mock-model)
  printf '%s\n' "$out" | tail -n 2
  printf '%s\n' "$out" | grep -Eq '"type" *: *"result"'
}

python_suite() {
  if [[ ! -x "$VENV_PY" ]]; then
    echo "missing $VENV_PY: run 'bash tests/setup.sh' first" >&2
    return 1
  fi
  timeout --kill-after=30 "$SUITE_TIMEOUT" \
    "$VENV_PY" -m pytest "$ROOT/tests/conformance/python" -q -p no:cacheprovider
}

node_suite() {
  if [[ ! -d "$NODEDIR/node_modules" ]]; then
    echo "missing $NODEDIR/node_modules: run 'bash tests/setup.sh' first" >&2
    return 1
  fi
  timeout --kill-after=30 "$SUITE_TIMEOUT" node --test --test-force-exit "$NODEDIR"/*.test.mjs
}

if [[ "${SKIP_CARGO:-0}" == 1 ]]; then # local iteration on the suites only
  SUMMARY+=("$(printf '%-22s skipped (SKIP_CARGO=1)' 'cargo build+test')")
else
  phase "cargo build" cargo build --workspace
  phase "cargo test" cargo test --workspace
fi
phase "dcl smoke" smoke
phase "python conformance" python_suite
phase "node conformance" node_suite
