#!/usr/bin/env bash
# Creates the environment the conformance suites need, idempotently:
#   tests/.work/venv                      Python venv with the pinned PyPI SDKs, built from
#                                         their sdists (--no-binary) so no bundled CLI exists
#   tests/conformance/node/node_modules   npm ci from the committed package-lock.json, without
#                                         optional deps (no native Claude Code) and without
#                                         install scripts (no Qoder runtime download)
#   tests/.work/reference-cli             the pinned reference CLI (tests/differential/
#                                         REFERENCE_VERSION) for the differential harness
#   tests/acp/ts/node_modules, tests/.work/acp-venv
#                                         the TypeScript and Python ACP clients (tests/acp)
# Re-running is cheap: each part is skipped while its inputs are unchanged.
# Env: PYTHON (default python3), FORCE_SETUP=1 to reinstall everything.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="$ROOT/tests/.work"
VENV="$WORK/venv"
PYDIR="$ROOT/tests/conformance/python"
NODEDIR="$ROOT/tests/conformance/node"
PYTHON="${PYTHON:-python3}"
FORCE="${FORCE_SETUP:-0}"

log() { printf '[setup] %s\n' "$*"; }
hash_of() { cat "$@" | sha256sum | cut -d' ' -f1; }

mkdir -p "$WORK"

# --- Python -----------------------------------------------------------------
py_inputs=("$PYDIR/requirements.txt" "$PYDIR/constraints.txt")
py_want="$(hash_of "${py_inputs[@]}") $("$PYTHON" -c 'import sys; print(sys.version.split()[0])')"
py_stamp="$VENV/.dcl-setup-stamp"
if [[ "$FORCE" != 1 && -x "$VENV/bin/python" && -f "$py_stamp" && "$(cat "$py_stamp")" == "$py_want" ]]; then
  log "python venv up to date ($VENV)"
else
  log "creating python venv at $VENV with $("$PYTHON" --version 2>&1)"
  rm -rf "$VENV"
  "$PYTHON" -m venv "$VENV"
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
    --no-binary claude-agent-sdk,qoder-agent-sdk \
    -r "$PYDIR/requirements.txt" -c "$PYDIR/constraints.txt"
  # The sdists ship an empty _bundled/; a CLI binary there would shadow dcl.
  "$VENV/bin/python" - <<'EOF'
import importlib, pathlib, sys
bad = []
for pkg in ("claude_agent_sdk", "qoder_agent_sdk"):
    d = pathlib.Path(importlib.import_module(pkg).__file__).parent / "_bundled"
    names = {"claude", "claude.exe", "qodercli", "qodercli.exe", "qoder", "qoder.exe"}
    if d.exists():
        bad += [str(p) for p in d.iterdir() if p.name in names or p.stat().st_size > 1 << 20]
if bad:
    sys.exit(f"bundled CLI binaries installed: {bad}")
EOF
  echo "$py_want" >"$py_stamp"
  log "python packages: $("$VENV/bin/python" -m pip freeze --disable-pip-version-check | grep -Ei '^(claude-agent-sdk|qoder-agent-sdk|pytest|pytest-asyncio|anyio)==' | tr '\n' ' ')"
fi

# --- Node -------------------------------------------------------------------
node_want="$(hash_of "$NODEDIR/package.json" "$NODEDIR/package-lock.json" "$NODEDIR/.npmrc") $(node --version)"
node_stamp="$NODEDIR/node_modules/.dcl-setup-stamp"
if [[ "$FORCE" != 1 && -f "$node_stamp" && "$(cat "$node_stamp")" == "$node_want" ]]; then
  log "node_modules up to date ($NODEDIR/node_modules)"
else
  log "npm ci in $NODEDIR (node $(node --version), npm $(npm --version))"
  (
    cd "$NODEDIR"
    # --omit=optional: no @anthropic-ai/claude-agent-sdk-<platform> native CLI.
    # --ignore-scripts: no @qoder-ai/qoder-agent-sdk postinstall download.
    QODER_SKIP_DOWNLOAD=1 npm ci --omit=optional --ignore-scripts --no-audit --no-fund --loglevel=error
  )
  echo "$node_want" >"$node_stamp"
fi

# --- Node package (node/) -----------------------------------------------------
node_pkg_setup() { # npm ci in node/ from its package-lock.json (no optional deps, no scripts)
  local dir="$ROOT/node" want stamp="$ROOT/node/node_modules/.dcl-setup-stamp"
  want="$(hash_of "$dir/package.json" "$dir/package-lock.json") $(node --version)"
  if [[ "$FORCE" != 1 && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    log "node/node_modules up to date"; return
  fi
  log "npm ci in $dir"
  (cd "$dir" && npm ci --omit=optional --ignore-scripts --no-audit --no-fund --loglevel=error)
  echo "$want" >"$stamp"
}
node_pkg_setup

# --- Reference CLI (tests/differential) -----------------------------------------
reference_cli_setup() { # the pinned @anthropic-ai/claude-code whose path decisions the differential harness compares dcl with
  local version dir="$WORK/reference-cli" stamp bin
  version="$(tr -d '[:space:]' <"$ROOT/tests/differential/REFERENCE_VERSION")"
  stamp="$dir/.dcl-setup-stamp"
  bin="$dir/node_modules/@anthropic-ai/claude-code-linux-x64/claude"
  if [[ "$(uname -sm)" != "Linux x86_64" ]]; then
    log "reference CLI: only its linux-x64 binary is used; skipped on $(uname -sm)"; return
  fi
  if [[ "$FORCE" != 1 && -x "$bin" && -f "$stamp" && "$(cat "$stamp")" == "$version" ]]; then
    log "reference CLI $version up to date ($dir)"; return
  fi
  log "installing @anthropic-ai/claude-code@$version into $dir (its native binary is ~400 MB unpacked)"
  rm -rf "$dir"
  mkdir -p "$dir"
  printf '{"private": true}\n' >"$dir/package.json"
  # --ignore-scripts: the harness runs the platform package's binary directly, so the
  # wrapper's postinstall (which links it over bin/claude.exe) is not needed.
  (cd "$dir" && npm install --no-save --no-audit --no-fund --ignore-scripts --loglevel=error \
    "@anthropic-ai/claude-code@$version")
  if ! "$bin" --version | grep -q "^$version "; then
    echo "reference CLI: $bin is not version $version" >&2
    return 1
  fi
  echo "$version" >"$stamp"
}
reference_cli_setup

# --- ACP clients (tests/acp) ------------------------------------------------------
acp_clients_setup() { # the TypeScript and Python ACP clients that drive `dcl acp`
  local ts="$ROOT/tests/acp/ts" pyreq="$ROOT/tests/acp/python/requirements.txt"
  local venv="$WORK/acp-venv" want stamp
  want="$(hash_of "$ts/package.json" "$ts/package-lock.json") $(node --version)"
  stamp="$ts/node_modules/.dcl-setup-stamp"
  if [[ "$FORCE" != 1 && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    log "tests/acp/ts/node_modules up to date"
  else
    log "npm ci in $ts"
    (cd "$ts" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
    echo "$want" >"$stamp"
  fi
  want="$(hash_of "$pyreq") $("$PYTHON" -c 'import sys; print(sys.version.split()[0])')"
  stamp="$venv/.dcl-setup-stamp"
  if [[ "$FORCE" != 1 && -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    log "ACP python client venv up to date ($venv)"
  else
    log "creating the ACP python client venv at $venv"
    rm -rf "$venv"
    "$PYTHON" -m venv "$venv"
    # pytest runs the unittest cases so run-all.sh can count them.
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$pyreq" pytest==9.2.0
    echo "$want" >"$stamp"
  fi
}
acp_clients_setup

log "done"
