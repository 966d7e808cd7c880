#!/usr/bin/env bash
# The one test command: build, Rust tests, then the SDK conformance suites.
# Stops at the first failing phase and prints a summary of the phases run.
# Assumes `bash tests/setup.sh` has been run (venv + node_modules).
# Env: DCL_BIN (default target/debug/dcl), CONFORMANCE_TIMEOUT (seconds per suite, default 900),
#      DCL_REFERENCE_CLI (the differential harness's reference CLI),
#      SKIP_CARGO=1 (skip build and cargo test: for iterating on the suites only).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

export DCL_BIN="${DCL_BIN:-$ROOT/target/debug/dcl}"
SUITE_TIMEOUT="${CONFORMANCE_TIMEOUT:-900}"
VENV_PY="$ROOT/tests/.work/venv/bin/python"
NODEDIR="$ROOT/tests/conformance/node"

LOGDIR="$ROOT/tests/.work/logs"
mkdir -p "$LOGDIR"
TOTALS="$ROOT/tests/.work/test-totals.txt"
rm -f "$TOTALS"
PASSED=0
FAILED=0
SUMMARY=()
CURRENT=""
START_ALL=$SECONDS

# Adds the pass/fail counts a runner printed (in its log) to the totals.
count() {
  local kind="$1" log="$2" p f
  case "$kind" in
    cargo) # "test result: ok. 12 passed; 0 failed; 0 ignored; ..."
      read -r p f < <(awk '/^test result: /{for(i=2;i<=NF;i++){if($i~/^passed;?$/)p+=$(i-1); if($i~/^failed;?$/)f+=$(i-1)}} END{print p+0, f+0}' "$log") ;;
    pytest) # each run's summary line, like "2 failed, 10 passed in 9.24s" (a log may hold several)
      read -r p f < <(awk '/[0-9]+ (passed|failed|errors?).* in [0-9.]+s/{n=split($0,a," "); for(i=2;i<=n;i++){if(a[i]~/^passed,?$/)p+=a[i-1]; if(a[i]~/^(failed|errors?),?$/)f+=a[i-1]}} END{print p+0, f+0}' "$log") ;;
    surefire) # Maven's closing "Tests run: 12, Failures: 0, Errors: 0, Skipped: 0" (no "Time elapsed")
      read -r p f < <(awk '/Tests run: [0-9]+, Failures: [0-9]+, Errors: [0-9]+/ && !/Time elapsed/{gsub(/,/,""); for(i=1;i<=NF;i++){if($i=="run:")r=$(i+1); if($i=="Failures:")fl=$(i+1); if($i=="Errors:")e=$(i+1); if($i=="Skipped:")s=$(i+1)}} END{print r-fl-e-s+0, fl+e+0}' "$log") ;;
    gotest) # "--- PASS: TestX" / "--- FAIL: TestX"
      read -r p f < <(awk '/^--- PASS/{p++} /^--- FAIL/{f++} END{print p+0, f+0}' "$log") ;;
    node) # "# pass 12" / "# fail 0"
      read -r p f < <(awk '/^# pass [0-9]+/{p+=$3} /^# fail [0-9]+/{f+=$3} END{print p+0, f+0}' "$log") ;;
  esac
  PASSED=$((PASSED + p))
  FAILED=$((FAILED + f))
}

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
  # Test counts over every runner that ran (cargo test, pytest, node --test, surefire, go test).
  echo "tests: $PASSED passed, $FAILED failed" | tee "$TOTALS"
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
  # Raw stream-json without an SDK: one user line in, a result line out, exit 0.
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
  local log="$LOGDIR/pytest.log" rc=0
  timeout --kill-after=30 "$SUITE_TIMEOUT" \
    "$VENV_PY" -m pytest "$ROOT/tests/conformance/python" -q -p no:cacheprovider 2>&1 |
    tee "$log" || rc=$?
  count pytest "$log"
  return "$rc"
}

node_suite() {
  if [[ ! -d "$NODEDIR/node_modules" ]]; then
    echo "missing $NODEDIR/node_modules: run 'bash tests/setup.sh' first" >&2
    return 1
  fi
  local log="$LOGDIR/node-test.log" rc=0
  timeout --kill-after=30 "$SUITE_TIMEOUT" node --test --test-force-exit "$NODEDIR"/*.test.mjs 2>&1 |
    tee "$log" || rc=$?
  count node "$log"
  return "$rc"
}

cargo_test() {
  local log="$LOGDIR/cargo-test.log" rc=0
  cargo test --workspace 2>&1 | tee "$log" || rc=$?
  count cargo "$log"
  return "$rc"
}

if [[ "${SKIP_CARGO:-0}" == 1 ]]; then # local iteration on the suites only
  SUMMARY+=("$(printf '%-22s skipped (SKIP_CARGO=1)' 'cargo build+test')")
else
  phase "cargo build" cargo build --workspace
  phase "cargo test" cargo_test
fi
phase "dcl smoke" smoke
phase "python conformance" python_suite
phase "node conformance" node_suite
schema_check() {
  # Every line dcl wrote to the SDKs above (recorded by tests/conformance/trace-dcl.sh) must
  # validate against the protocol schema; each answer against its request's type.
  # The bin comes out of the workspace build (dcl-test-support turns `validate` on), so this
  # is a no-op build; `cargo run -p dcl-protocol --features validate` resolved a narrower
  # feature set and compiled ~40 crates again (178 s of CI).
  cargo build -q --workspace
  "${CARGO_TARGET_DIR:-$ROOT/target}/debug/validate-lines" "${DCL_RECORD_DIR:-$ROOT/tests/.work/recorded}"
}
phase "protocol schema" schema_check
python_inprocess() {
  local log="$LOGDIR/python-inprocess.log" rc=0
  timeout --kill-after=30 "$SUITE_TIMEOUT" bash "$ROOT/python/ci.sh" 2>&1 | tee "$log" || rc=$?
  count pytest "$log"
  return "$rc"
}
phase "python in-process" python_inprocess
node_inprocess() {
  local log="$LOGDIR/node-inprocess.log" rc=0
  timeout --kill-after=30 "$SUITE_TIMEOUT" bash "$ROOT/node/ci.sh" 2>&1 | tee "$log" || rc=$?
  count node "$log"
  return "$rc"
}
phase "node in-process" node_inprocess
java_suite() {
  # The Java SDK (java/): builds libdcl_java and dcl, then JUnit 5 over both transports.
  local log="$LOGDIR/java-suite.log" rc=0
  # Not -q: that would hide Surefire's "Tests run:" summary, which the counts come from.
  # -Dskip.cargo: the pom's own `cargo build -p dcl-java -p dcl-cli` would resolve a narrower
  # feature set than the workspace build and compile the dcl crates again; the workspace
  # build (a no-op here) makes libdcl_java and dcl.
  cargo build -q --workspace
  timeout --kill-after=30 "$SUITE_TIMEOUT" mvn -B -ntp -f "$ROOT/java/pom.xml" -Dskip.cargo verify >"$log" 2>&1 || rc=$?
  grep -E 'Tests run:|FAIL|ERROR\]|BUILD' "$log" || true
  count surefire "$log"
  return "$rc"
}
phase "java suite" java_suite
phase "c abi" bash "$ROOT/tests/c/run.sh"
go_suite() {
  local rc=0
  mkdir -p "$ROOT/tests/.work"
  bash "$ROOT/tests/go/run.sh" || rc=$?
  count gotest "$ROOT/tests/.work/go-test.log"
  return "$rc"
}
phase "go" go_suite
kotlin_suite() {
  # Kotlin (kotlin/, JUnit 5) over the uniffi bindings, and the Swift sources' freshness check.
  local log="$LOGDIR/kotlin.log" rc=0
  timeout --kill-after=30 "$SUITE_TIMEOUT" env KOTLIN_LOG="$log" bash "$ROOT/tests/kotlin/run.sh" || rc=$?
  count surefire "$log"
  return "$rc"
}
phase "kotlin" kotlin_suite
acp_clients() {
  # `dcl acp` through two independent ACP clients: the official TypeScript SDK and the
  # Python one (tests/acp; the Rust client side runs in `cargo test -p dcl-acp`).
  local log="$LOGDIR/acp-ts.log" pylog="$LOGDIR/acp-python.log" rc=0
  (cd "$ROOT/tests/acp/ts" && timeout --kill-after=30 "$SUITE_TIMEOUT" node --test --test-force-exit acp.test.mjs) 2>&1 |
    tee "$log" || rc=$?
  count node "$log"
  (cd "$ROOT/tests/acp/python" && timeout --kill-after=30 "$SUITE_TIMEOUT" \
    "$ROOT/tests/.work/acp-venv/bin/python" -m pytest test_acp.py -q -p no:cacheprovider) 2>&1 |
    tee "$pylog" || rc=$?
  count pytest "$pylog"
  return "$rc"
}
phase "acp clients" acp_clients
differential() {
  # dcl's path decisions against the pinned reference CLI, scenario by scenario
  # (tests/differential/run.py): fails where dcl is looser and accepted.json has no reason;
  # without the reference (bash tests/setup.sh installs it) it fails under CI=true, else skips.
  local log="$LOGDIR/differential.log" rc=0
  "$VENV_PY" -m pytest "$ROOT/tests/differential" -q -p no:cacheprovider 2>&1 | tee "$log" || rc=$?
  count pytest "$log"
  [[ $rc -eq 0 ]] || return "$rc"
  timeout --kill-after=30 300 python3 "$ROOT/tests/differential/run.py"
}
phase "differential" differential
if [[ "${SKIP_CARGO:-0}" != 1 ]]; then
  phase "fuzz parse_line" env FUZZ_SECONDS="${FUZZ_SECONDS:-30}" bash tests/fuzz.sh
fi
