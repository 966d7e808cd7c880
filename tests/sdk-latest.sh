#!/usr/bin/env bash
# Drift watch: installs the newest published SDK releases into a scratch dir and runs the
# conformance suites against them, printing what broke. Report-only: it always exits 0
# (.ci/run runs it as its last phase). When every pin already is the newest release, the
# pinned suites ran those versions and nothing more is run.
#
# Bumping the pins once this reports green: edit tests/conformance/python/requirements.txt
# (and re-freeze constraints.txt) and tests/conformance/node/package.json, run
# `npm install --package-lock-only --omit=optional --ignore-scripts` in tests/conformance/node,
# then `bash tests/setup.sh && bash tests/run-all.sh`, and add the row to README's table.
# Env: DCL_BIN (default target/debug/dcl).
set -uo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="$ROOT/tests/.work/sdk-latest"
export DCL_BIN="${DCL_BIN:-$ROOT/target/debug/dcl}"
export DCL_RECORD=0
PY_PINS="$ROOT/tests/conformance/python/requirements.txt"
NODE_DIR="$ROOT/tests/conformance/node"

say() { printf '[sdk-latest] %s\n' "$*"; }
pinned_py() { sed -n "s/^$1==//p" "$PY_PINS"; }
pinned_npm() { node -e "console.log(require('$NODE_DIR/package.json').dependencies['$1'])"; }
newest_py() { python3 -m pip index versions "$1" 2>/dev/null | sed -n 's/^[^ ]* (\(.*\))$/\1/p' | head -n 1; }
newest_npm() { npm view "$1" version 2>/dev/null | tail -n 1; }

declare -A PIN NEW
for p in claude-agent-sdk qoder-agent-sdk; do PIN[$p]="$(pinned_py "$p")"; NEW[$p]="$(newest_py "$p")"; done
for p in @anthropic-ai/claude-agent-sdk @qoder-ai/qoder-agent-sdk; do PIN[$p]="$(pinned_npm "$p")"; NEW[$p]="$(newest_npm "$p")"; done

drift=0
for p in "${!PIN[@]}"; do
  if [[ -z "${NEW[$p]}" ]]; then
    say "$p: pinned ${PIN[$p]}, newest unknown (registry did not answer)"
  elif [[ "${NEW[$p]}" != "${PIN[$p]}" ]]; then
    say "$p: pinned ${PIN[$p]}, newest ${NEW[$p]}  <-- drift"
    drift=1
  else
    say "$p: pinned ${PIN[$p]} is the newest"
  fi
done
if [[ $drift == 0 ]]; then
  say "every pin is the newest release: the pinned suites covered them"
  exit 0
fi

mkdir -p "$WORK"
report=()
# Python: a scratch venv with the newest sdists (no bundled CLI), the suite as it is.
if [[ "${NEW[claude-agent-sdk]}" != "${PIN[claude-agent-sdk]}" || "${NEW[qoder-agent-sdk]}" != "${PIN[qoder-agent-sdk]}" ]]; then
  req="$WORK/requirements.txt"
  grep -v -E '^(claude-agent-sdk|qoder-agent-sdk)==' "$PY_PINS" >"$req"
  echo "claude-agent-sdk==${NEW[claude-agent-sdk]}" >>"$req"
  echo "qoder-agent-sdk==${NEW[qoder-agent-sdk]}" >>"$req"
  rm -rf "$WORK/venv" && python3 -m venv "$WORK/venv" &&
    "$WORK/venv/bin/python" -m pip install --quiet --disable-pip-version-check \
      --no-binary claude-agent-sdk,qoder-agent-sdk -r "$req" >"$WORK/pip.log" 2>&1
  if [[ $? -ne 0 ]]; then
    report+=("python: install of the newest SDKs failed (see $WORK/pip.log)")
  else
    DCL_SDK_REQUIREMENTS="$req" timeout 900 "$WORK/venv/bin/python" -m pytest \
      "$ROOT/tests/conformance/python" -q -p no:cacheprovider >"$WORK/pytest.log" 2>&1
    report+=("python: $(tail -n 1 "$WORK/pytest.log")")
    grep -E '^(FAILED|ERROR) ' "$WORK/pytest.log" | sed 's/^/    /' | head -n 40
  fi
fi
# Node: the suite copied beside a package.json naming the newest releases.
if [[ "${NEW[@anthropic-ai/claude-agent-sdk]}" != "${PIN[@anthropic-ai/claude-agent-sdk]}" || "${NEW[@qoder-ai/qoder-agent-sdk]}" != "${PIN[@qoder-ai/qoder-agent-sdk]}" ]]; then
  nd="$WORK/node"
  rm -rf "$nd" && mkdir -p "$nd" && cp -r "$NODE_DIR"/*.mjs "$NODE_DIR"/fixtures "$nd"/
  node -e "
    const p = require('$NODE_DIR/package.json');
    p.dependencies['@anthropic-ai/claude-agent-sdk'] = '${NEW[@anthropic-ai/claude-agent-sdk]}';
    p.dependencies['@qoder-ai/qoder-agent-sdk'] = '${NEW[@qoder-ai/qoder-agent-sdk]}';
    require('fs').writeFileSync('$nd/package.json', JSON.stringify(p, null, 2));"
  if ! (cd "$nd" && QODER_SKIP_DOWNLOAD=1 npm install --omit=optional --ignore-scripts --no-audit --no-fund --loglevel=error >"$WORK/npm.log" 2>&1); then
    report+=("node: install of the newest SDKs failed (see $WORK/npm.log)")
  else
    (cd "$nd" && timeout 900 node --test --test-force-exit ./*.test.mjs >"$WORK/node.log" 2>&1)
    report+=("node: $(grep -E '^# (pass|fail) ' "$WORK/node.log" | tr '\n' ' ')")
    grep -E '^not ok ' "$WORK/node.log" | sed 's/^/    /' | head -n 40
  fi
  # Flags the newest TS SDK puts on argv that dcl's table does not know.
  table="$ROOT/core/argv/src/args.rs"
  [[ -f "$table" ]] || report+=("dcl's flag table is not at $table: the flag check did not run")
  [[ -f "$table" ]] && for f in $(grep -ohE '(ot|OE)\("--[a-z][a-z-]*"|push\("--[a-z][a-z-]*"' \
    "$nd/node_modules/@anthropic-ai/claude-agent-sdk/sdk.mjs" 2>/dev/null | grep -oE -- '--[a-z-]+' | sort -u); do
    grep -q "\"$f\"" "$table" || report+=("flag unknown to dcl: $f")
  done
fi
say "what the newest releases make of dcl:"
for line in "${report[@]}"; do say "  $line"; done
exit 0
