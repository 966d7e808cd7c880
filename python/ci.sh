#!/usr/bin/env bash
# Builds dcl's Python extension in-place and runs the Python package's tests.
#   tests/.work/pyenv   venv (created once, reused): maturin, pytest, pytest-asyncio and
#                       claude-agent-sdk (from its sdist: no bundled CLI) for DclTransport
# Then `maturin develop` (debug build, editable install), the sdist's crate check
# (scripts/check_sdist.py) and pytest on python/tests.
# Env: PYTHON (default python3), MATURIN_ARGS (e.g. --release), PYTEST_ARGS.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PYDIR="$ROOT/python"
VENV="$ROOT/tests/.work/pyenv"
PYTHON="${PYTHON:-python3}"
CONSTRAINTS="$ROOT/tests/conformance/python/constraints.txt"

export DCL_BIN="${DCL_BIN:-$ROOT/target/debug/dcl}"

log() { printf '[python/ci] %s\n' "$*"; }

want="maturin pytest pytest-asyncio claude-agent-sdk==0.2.190 $("$PYTHON" -c 'import sys; print(sys.version.split()[0])')"
stamp="$VENV/.dcl-pyenv-stamp"
if [[ -x "$VENV/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
  log "venv up to date ($VENV)"
else
  log "creating $VENV"
  rm -rf "$VENV"
  mkdir -p "$(dirname "$VENV")"
  "$PYTHON" -m venv "$VENV"
  constraint_args=()
  [[ -f "$CONSTRAINTS" ]] && constraint_args=(-c "$CONSTRAINTS")
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
    --no-binary claude-agent-sdk "${constraint_args[@]}" \
    maturin pytest pytest-asyncio claude-agent-sdk==0.2.190
  echo "$want" >"$stamp"
fi

log "maturin develop ${MATURIN_ARGS:-}"
t0=$SECONDS
(cd "$PYDIR" && VIRTUAL_ENV="$VENV" PATH="$VENV/bin:$PATH" "$VENV/bin/maturin" develop ${MATURIN_ARGS:-})
log "maturin develop took $((SECONDS - t0))s"

# The sdist carries every workspace crate the extension needs (from cargo metadata); cheap:
# it packs the sources, it does not build them.
"$VENV/bin/python" "$ROOT/scripts/check_sdist.py" --build --maturin "$VENV/bin/maturin"

cd "$PYDIR"
# shellcheck disable=SC2086
"$VENV/bin/python" -m pytest tests -q -p no:cacheprovider ${PYTEST_ARGS:-}
# And again with every session in a dcl child driven by the same Rust host (the subprocess
# transport): the same tests, the same assertions.
if [[ -x "${DCL_BIN:-}" ]]; then
  DCL_CLI_PATH="$DCL_BIN" "$VENV/bin/python" -m pytest tests -q -p no:cacheprovider ${PYTEST_ARGS:-}
else
  echo "[python/ci] DCL_BIN ($DCL_BIN) is not built: the subprocess-transport run needs it" >&2
  exit 1
fi
