#!/usr/bin/env bash
# Debugging aid: a stand-in for dcl that records the stream-json traffic between an SDK
# and the real binary. Point a suite at it to see exactly what each side sent:
#   DCL_BIN=$PWD/tests/conformance/trace-dcl.sh DCL_TRACE_DIR=/tmp/dcl-trace \
#     tests/.work/venv/bin/python -m pytest tests/conformance/python -k hook
# Each run of dcl leaves <DCL_TRACE_DIR>/<time>-<pid>.{argv,env,in,out,err}: the argv, the
# SDK-set environment (CLAUDE*/QODER*), stdin (SDK -> dcl) and stdout (dcl -> SDK).
# Env: DCL_REAL_BIN (default <repo>/target/debug/dcl), DCL_TRACE_DIR (default /tmp/dcl-trace).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
real="${DCL_REAL_BIN:-$here/../../target/debug/dcl}"
dir="${DCL_TRACE_DIR:-/tmp/dcl-trace}"
case "${1:-}" in -v | --version) exec "$real" "$@" ;; esac # the SDKs' version probe
mkdir -p "$dir"
n="$dir/$(date +%s%N)-$$"
printf '%q ' "$@" >"$n.argv"
env | grep -E '^(CLAUDE|QODER|DCL)' | grep -Evi 'token|key|secret|payload' >"$n.env" || true
# exec: the SDK's child pid is dcl itself, so its signals and exit code are dcl's.
# The tees' own stderr goes nowhere: they must not hold the SDK's stderr pipe open.
exec "$real" "$@" < <(tee "$n.in" 2>/dev/null) > >(tee "$n.out" 2>/dev/null) 2> >(tee "$n.err" >&2 2>/dev/null)
