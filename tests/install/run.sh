#!/usr/bin/env bash
# The install check (.ci/run phase `install`): builds dist/ (scripts/dist.sh), then installs
# each artifact as a user would and runs it there:
#
#   targets        each target's artifacts in dist/ built for its platform (check_targets.py),
#                  and the jar's loader simulated for every os.name / os.arch (jar/JarPlatforms.java)
#   static dcl     dcl -v, dcl -p on the mock model
#   Python         fresh venv, pip install the wheel (+ claude-agent-sdk from PyPI): `dcl` on
#                  PATH, dcl.query() with can_use_tool allowing a Write, claude-agent-sdk
#                  driving the wheel's dcl                                  (python_checks.py)
#   Node           empty npm project, npm install of the two tarballs: ESM and CJS queries with
#                  canUseTool; then the TS SDK (registry) driving the platform package's dcl
#   Java           the jar installed by its pom into a fresh local repository; an empty Maven
#                  project depending on it by coordinates compiles the seed's DclExample
#                  (java/examples/dcl-example) and runs it in-process against a fake model,
#                  and BundledCli runs the subprocess transport on the jar's own dcl
#   npm fallback   npm install of @dcl/agent alone, `npm install-scripts approve @dcl/agent`
#                  (npm 11 runs no dependency install script unasked), then
#                  DCL_NODE_BUILD_FROM_SOURCE=1 npm rebuild: the addon builds from the tarball's
#                  Rust sources and a query runs on it; without cargo the same fails clearly
#
# Every user step runs in a private mount namespace where the checkout, the cargo target
# dirs, ~/.cargo, ~/.rustup and ~/.m2 are empty tmpfs mounts, with a PATH that has no cargo
# or rustc, a fresh HOME, and no CARGO_* / DCL_* variables: nothing from the build can leak
# in. Only the source-fallback step has cargo (it is the point of that step).
#
# Env: INSTALL_SKIP_DIST=1 (use the dist/ already built), INSTALL_KEEP=1 (keep the work dir),
#      INSTALL_FALLBACK_TARGET_DIR (cargo target dir of the fallback build; default the
#      checkout's debug build dir, so crates.io dependencies the tests phase compiled are
#      reused — the workspace crates still compile from the tarball's rust/),
#      INSTALL_FALLBACK_RELEASE=1 (an optimised fallback build instead of a debug one),
#      INSTALL_SKIP_FALLBACK=1, INSTALL_STEPS (a subset of "targets static python node java fallback"),
#      INSTALL_ALL_TARGETS=1 (a target missing from dist/ fails).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/tests/install"
DIST="${DIST_DIR:-$ROOT/dist}"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
FALLBACK_TARGET="${INSTALL_FALLBACK_TARGET_DIR:-$TARGET_DIR}"
FALLBACK_DEBUG=1
[[ "${INSTALL_FALLBACK_RELEASE:-0}" == 1 ]] && FALLBACK_DEBUG=0
WORK="$(mktemp -d "${TMPDIR:-/tmp}/dcl-install.XXXXXX")"
STEPS=()
CURRENT=""
START=$SECONDS

log() { printf '[install] %s\n' "$*"; }
die() {
  printf '[install] FAILED: %s\n' "$*" >&2
  exit 1
}
finish() {
  local rc=$?
  [[ -n "$CURRENT" ]] && STEPS+=("$(printf '%-34s FAILED (exit %d)' "$CURRENT" "$rc")")
  echo
  echo "==================== install summary ===================="
  local s
  for s in "${STEPS[@]}"; do echo "  $s"; done
  echo "  total $((SECONDS - START))s, exit $rc"
  echo "========================================================="
  pkill_fake
  if [[ "${INSTALL_KEEP:-0}" == 1 || $rc -ne 0 ]]; then echo "work dir kept: $WORK"; else rm -rf "$WORK"; fi
}
FAKE_SERVER=""
# The fake model is the coprocess's child (user → unshare → bash → env each exec into the next):
# ending the coprocess alone left the server running after the checks.
pkill_fake() {
  [[ -n "$FAKE_SERVER" ]] || return 0
  local stat rest
  for stat in /proc/[0-9]*/stat; do
    read -r rest <"$stat" 2>/dev/null || continue
    rest="${rest##*) }" # past "pid (comm) ": state, then the parent's pid
    rest="${rest#* }"
    [[ "${rest%% *}" == "$FAKE_SERVER" ]] || continue
    stat="${stat#/proc/}"
    kill "${stat%/stat}" 2>/dev/null || true
  done
  kill "$FAKE_SERVER" 2>/dev/null || true
}
trap finish EXIT
step() {
  local name="$1" t0=$SECONDS
  shift
  CURRENT="$name"
  echo
  log "== $name"
  "$@"
  STEPS+=("$(printf '%-34s ok %4ds' "$name" "$((SECONDS - t0))")")
  CURRENT=""
}

# --- dist/ ----------------------------------------------------------------------------------
if [[ "${INSTALL_SKIP_DIST:-0}" == 1 ]]; then
  [[ -x "$DIST/dcl" ]] || die "INSTALL_SKIP_DIST=1 but $DIST has no dcl"
else
  step "build dist/" bash "$ROOT/scripts/dist.sh"
fi
VERSION="$(sed -n 's/^version = "\(.*\)"$/\1/p' "$ROOT/Cargo.toml" | head -n 1)"
[[ -n "$VERSION" ]] || die "no workspace version in Cargo.toml"

# --- the user environment ---------------------------------------------------------------------
mkdir -p "$WORK/dist" "$WORK/home" "$WORK/tmp" "$WORK/bin"
cp -r "$DIST"/. "$WORK/dist/"
cp -r "$HERE/." "$WORK/tests/"
cp "$ROOT/java/examples/dcl-example/src/DclExample.java" "$WORK/tests/java/src/main/java/"

# The real interpreters (a pyenv shim needs the real HOME): resolved once, put on the PATH.
PYTHON="$(python3 -c 'import sys; print(sys.executable)')"
for tool in node npm mvn java file unshare; do command -v "$tool" >/dev/null || die "$tool not found"; done
ln -s "$PYTHON" "$WORK/bin/python3"
USER_PATH="$WORK/bin"
IFS=: read -ra path_dirs <<<"$PATH"
for d in "${path_dirs[@]}"; do
  [[ -d "$d" && "$d" != "$ROOT"* && "$d" != "$HOME/.cargo"* && "$d" != "$HOME/.rustup"* && "$d" != *pyenv/shims* ]] || continue
  [[ -e "$d/cargo" || -e "$d/rustc" || -e "$d/rustup" ]] && continue
  USER_PATH="$USER_PATH:$d"
done

# Directories the user steps must not see: the checkout (so its target/ too), the cargo
# target dir, the Rust toolchain and the Maven repository of this machine.
HIDE=("$ROOT" "$HOME/.cargo" "$HOME/.rustup" "$HOME/.m2")
[[ -d "$TARGET_DIR" ]] && HIDE+=("$TARGET_DIR")
[[ -d "$FALLBACK_TARGET" ]] && HIDE+=("$FALLBACK_TARGET")
EXISTING_HIDE=()
for d in "${HIDE[@]}"; do
  [[ -d "$d" ]] || continue
  d="$(cd "$d" && pwd -P)"
  inside=0 # a directory inside one already hidden is gone with it (and cannot be mounted on)
  for h in "${EXISTING_HIDE[@]}"; do [[ "$d" == "$h" || "$d" == "$h"/* ]] && inside=1; done
  [[ $inside == 1 ]] || EXISTING_HIDE+=("$d")
done

# user [--with-cargo] <dir> <command...>: runs a command as the user, in <dir>.
user() {
  local with_cargo=0
  if [[ "$1" == --with-cargo ]]; then
    with_cargo=1
    shift
  fi
  local dir="$1"
  shift
  local path="$USER_PATH" hide=("${EXISTING_HIDE[@]}") bind=()
  if [[ $with_cargo == 1 ]]; then
    # The toolchain stays; the checkout does not. The fallback's target dir (maybe inside the
    # checkout) is bind-mounted to $WORK/fallback-target first.
    path="$(dirname "$(command -v cargo)"):$path"
    hide=("$(cd "$ROOT" && pwd -P)")
    mkdir -p "$FALLBACK_TARGET" "$WORK/fallback-target"
    bind=("$FALLBACK_TARGET" "$WORK/fallback-target")
  fi
  local keep=()
  local v
  for v in LANG LC_ALL TERM CI http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY \
    SSL_CERT_FILE SSL_CERT_DIR REQUESTS_CA_BUNDLE NODE_EXTRA_CA_CERTS JAVA_HOME \
    PIP_CERT PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_DEFAULT_TIMEOUT NPM_CONFIG_REGISTRY NPM_CONFIG_CAFILE; do
    [[ -n "${!v:-}" ]] && keep+=("$v=${!v}")
  done
  if [[ $with_cargo == 1 ]]; then
    for v in CARGO_HOME RUSTUP_HOME RUSTUP_TOOLCHAIN; do [[ -n "${!v:-}" ]] && keep+=("$v=${!v}"); done
    keep+=("CARGO_HOME=${CARGO_HOME:-$HOME/.cargo}" "RUSTUP_HOME=${RUSTUP_HOME:-$HOME/.rustup}")
  fi
  # shellcheck disable=SC2016
  unshare --mount --propagation private -- bash -c '
    if [ "$1" = bind ]; then mount --bind "$2" "$3" || { echo "install: cannot bind-mount $2" >&2; exit 89; }; fi
    shift 3
    n="$1"; shift
    for ((i = 0; i < n; i++)); do mount -t tmpfs -o ro,size=64k dcl-hidden "$1" || { echo "install: cannot hide $1 (needs root and unshare --mount)" >&2; exit 90; }; shift; done
    cd "$1" || exit 91; shift
    exec env -i "$@"' _ "$([[ ${#bind[@]} -gt 0 ]] && echo bind || echo none)" "${bind[0]:-}" "${bind[1]:-}" "${#hide[@]}" "${hide[@]}" "$dir" \
    "${keep[@]}" HOME="$WORK/home" TMPDIR="$WORK/tmp" PATH="$path" \
    NPM_CONFIG_UPDATE_NOTIFIER=false NPM_CONFIG_FUND=false NPM_CONFIG_AUDIT=false PIP_DISABLE_PIP_VERSION_CHECK=1 \
    "$@"
}

isolation() {
  # The checks below must be able to fail: each hidden thing is looked for from inside.
  user "$WORK" bash -c '
    set -e
    if command -v cargo || command -v rustc || command -v rustup; then echo "a Rust toolchain is on the user PATH" >&2; exit 1; fi
    for d in "$@"; do
      if [ -n "$(ls -A "$d" 2>/dev/null)" ]; then echo "$d is visible to the user steps" >&2; exit 1; fi
    done
    env | grep -E "^(CARGO|RUSTUP|DCL)_" && { echo "build variables leak into the user environment" >&2; exit 1; }
    echo "ok: no cargo/rustc on PATH ($PATH); hidden: $*"' _ "${EXISTING_HIDE[@]}"
}
step "user environment is isolated" isolation

# --- static dcl -------------------------------------------------------------------------------
static_dcl() {
  local exe="$WORK/dist/dcl" out
  out="$(file -L "$exe")"
  [[ "$out" == *"static-pie linked"* || "$out" == *"statically linked"* ]] || die "dist/dcl is not static: $out"
  log "$(du -h "$exe" | cut -f1) $out"
  mkdir -p "$WORK/static"
  out="$(user "$WORK/static" "$exe" -v)"
  [[ "$out" == *"(dcl $VERSION)"* ]] || die "dcl -v says '$out', not (dcl $VERSION)"
  out="$(user "$WORK/static" timeout 60 "$exe" -p "please FAKE_WRITE static.txt" --model mock-model \
    --permission-mode acceptEdits)"
  [[ -f "$WORK/static/static.txt" ]] || die "dcl -p on the mock model wrote no file; output: $out"
  log "ok: static dcl -p on the mock model: $(printf '%s' "$out" | tail -n 1)"
}
wanted() { [[ " ${INSTALL_STEPS:-targets static python node java fallback} " == *" $1 "* ]]; }
# Every target's artifacts in dist/ (this machine's own, and each dist/<triple>/ of a
# scripts/dist.sh --target/--all run) are built for their platform, and the jar's loader finds
# each platform's library for the os.name / os.arch its JVMs report (simulated).
# INSTALL_ALL_TARGETS=1: a target missing from dist/ fails (after scripts/dist.sh --all).
targets() {
  local all=()
  [[ "${INSTALL_ALL_TARGETS:-0}" == 1 ]] && all=(--all)
  python3 "$HERE/check_targets.py" "$WORK/dist" "${all[@]}"
  local jar
  jar="$(ls "$WORK"/dist/agent-cli-sdk-*.jar | grep -v -- '-sources\|-javadoc' | head -n 1)"
  java -cp "$jar" "$HERE/jar/JarPlatforms.java" "$jar" "${all[@]}"
}
if wanted targets; then step "targets: every platform's artifacts" targets; fi
if wanted static; then step "static dcl -p (mock model)" static_dcl; fi

# --- Python -------------------------------------------------------------------------------------
python_user() {
  local wheel
  wheel="$(ls "$WORK"/dist/dcl-"$VERSION"-*.whl)"
  user "$WORK" python3 -m venv "$WORK/venv"
  # claude-agent-sdk from its sdist: its wheels bundle a claude binary we neither need nor want.
  user "$WORK" "$WORK/venv/bin/pip" install --quiet --no-binary claude-agent-sdk \
    "$wheel" "claude-agent-sdk==0.2.190"
  mkdir -p "$WORK/py"
  user "$WORK/py" env PATH="$WORK/venv/bin:$USER_PATH" "$WORK/venv/bin/python" \
    "$WORK/tests/python_checks.py" "$VERSION" "$WORK/py"
}
if wanted python; then step "python: venv + wheel + queries" python_user; fi

# --- Node ---------------------------------------------------------------------------------------
node_user() {
  local app="$WORK/npm-app"
  mkdir -p "$app"
  user "$app" npm init -y >/dev/null
  # Both tarballs (the platform package is not on a registry); zod comes from the registry.
  user "$app" npm install --no-audit --no-fund --loglevel=error \
    "$WORK/dist/dcl-agent-$VERSION.tgz" "$WORK/dist/dcl-agent-linux-x64-gnu-$VERSION.tgz"
  [[ -x "$app/node_modules/.bin/dcl" ]] || die "npm linked no node_modules/.bin/dcl"
  local out
  out="$(user "$app" "$app/node_modules/.bin/dcl" -v)"
  [[ "$out" == *"(dcl $VERSION)"* ]] || die "node_modules/.bin/dcl -v says '$out', not (dcl $VERSION)"
  cp "$WORK/tests/node/"* "$app/"
  user "$app" node esm.mjs "$VERSION" "$app"
  user "$app" node cjs.cjs "$VERSION" "$app"
  # The TS SDK from the registry, without its optional native claude binaries.
  user "$app" npm install --no-audit --no-fund --loglevel=error --omit=optional "@anthropic-ai/claude-agent-sdk@0.3.337"
  user "$app" node sdk.mjs "$VERSION" "$app"
}
if wanted node; then step "node: npm install + ESM/CJS/TS SDK" node_user; fi

# --- Java ---------------------------------------------------------------------------------------
java_user() {
  local repo="$WORK/m2" proj="$WORK/tests/java" jar="$WORK/dist/agent-cli-sdk-$VERSION.jar"
  # The user's install of the jar by its pom (coordinates nexus.io.agent:agent-cli-sdk).
  user "$WORK" mvn -B -q -ntp "-Dmaven.repo.local=$repo" install:install-file \
    "-Dfile=$jar" "-DpomFile=$WORK/dist/agent-cli-sdk-$VERSION.pom"
  user "$proj" mvn -B -q -ntp "-Dmaven.repo.local=$repo" "-Ddcl.version=$VERSION" compile
  local cp="$proj/target/classes:$repo/nexus/io/agent/agent-cli-sdk/$VERSION/agent-cli-sdk-$VERSION.jar"
  [[ -f "$proj/target/classes/DclExample.class" ]] || die "DclExample did not compile"
  # The seed's example, in-process, against a fake Messages API (its model is deepseek-flash).
  local answer="README.md 介绍了 dcl：一个 Rust 编写的编程智能体运行时。" run="$WORK/java-run"
  mkdir -p "$run"
  printf '# demo\n' >"$run/README.md"
  coproc FAKE { user "$WORK" python3 "$WORK/tests/fake_model.py" "$answer" "$WORK/fake-requests.log"; }
  FAKE_SERVER=$FAKE_PID # (bash unsets FAKE_PID when the coprocess ends)
  local url
  read -r -t 30 url <&"${FAKE[0]}" || die "the fake model did not start"
  local out
  out="$(user "$run" env DEEPSEEK_BASE_URL="$url" DEEPSEEK_API_KEY=sk-fake \
    java -Ddcl.transport=in-process -Dfile.encoding=UTF-8 -cp "$cp" DclExample)"
  [[ "$out" == "$answer" ]] || die "DclExample printed '$out', not the fake model's answer"
  grep -q '"model": "deepseek-flash"' "$WORK/fake-requests.log" || die "the fake model saw no deepseek-flash request"
  grep -q '总结 README.md' "$WORK/fake-requests.log" || die "the prompt did not reach the model"
  log "ok: DclExample in-process printed the model's answer: $out"
  pkill_fake
  FAKE_SERVER=""
  # The subprocess transport on the jar's own dcl (no dcl on this PATH).
  mkdir -p "$WORK/java-sub"
  user "$WORK/java-sub" java -cp "$cp" BundledCli "$WORK/java-sub"
}
if wanted java; then step "java: mvn install + DclExample" java_user; fi

# --- npm source fallback ------------------------------------------------------------------------
fallback() {
  local app="$WORK/npm-src"
  mkdir -p "$app"
  user "$app" npm init -y >/dev/null
  # Only @dcl/agent: its optional platform package cannot come from a registry here. npm 11
  # skips a dependency's install script until the project approves it; then `npm rebuild`
  # runs it: what a user does to build from source.
  user "$app" npm install --ignore-scripts --no-audit --no-fund --loglevel=error "$WORK/dist/dcl-agent-$VERSION.tgz"
  user "$app" npm install-scripts approve @dcl/agent >/dev/null
  user --with-cargo "$app" env DCL_NODE_BUILD_FROM_SOURCE=1 DCL_NODE_DEBUG_BUILD="$FALLBACK_DEBUG" CARGO_TARGET_DIR="$WORK/fallback-target" \
    npm rebuild --foreground-scripts @dcl/agent
  cp "$WORK/tests/node/esm.mjs" "$app/"
  user "$app" env EXPECT_ADDON=source node esm.mjs "$VERSION" "$app"
  # Without the flag and without cargo, the same install must fail clearly, not half-work.
  local app2="$WORK/npm-nocargo" err
  mkdir -p "$app2"
  user "$app2" npm init -y >/dev/null
  user "$app2" npm install --ignore-scripts --no-audit --no-fund --loglevel=error "$WORK/dist/dcl-agent-$VERSION.tgz"
  user "$app2" npm install-scripts approve @dcl/agent >/dev/null
  if err="$(user "$app2" env DCL_NODE_BUILD_FROM_SOURCE=1 npm rebuild --foreground-scripts @dcl/agent 2>&1)"; then
    die "a forced source build without cargo succeeded"
  fi
  grep -q "needs a Rust toolchain" <<<"$err" || die "no clear error without cargo: $err"
  log "ok: without cargo the forced build fails with: $(grep -o "needs a Rust toolchain[^.]*" <<<"$err" | head -n 1)"
}
if wanted fallback && [[ "${INSTALL_SKIP_FALLBACK:-0}" != 1 ]]; then
  step "npm: forced source fallback" fallback
fi
