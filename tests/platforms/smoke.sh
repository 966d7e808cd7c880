#!/usr/bin/env bash
# Platform smoke tests on small cross-built executables (issue 37), for CI:
#
#   windows   dcl.exe (x86_64-pc-windows-gnu) under wine: -v; print mode on the mock model;
#             Write, Read, Edit (a CRLF file stays CRLF), Glob and Grep on Windows paths
#             (Z:\... is wine's view of /); a claude-agent-sdk session through a wrapper
#             running `wine dcl.exe`; Bash without Git Bash fails naming what to install;
#             Bash through CLAUDE_CODE_GIT_BASH_PATH (a stand-in bash.exe); a process a
#             command leaves behind ends with dcl.exe (Job Object), while its twin started
#             outside dcl outlives its parent
#   aarch64   dcl (aarch64-unknown-linux-musl) under qemu-aarch64-static: -v; print mode on
#             the mock model with a Bash call; then in an empty root holding only dcl (and
#             the emulator, which an aarch64 host would not need)
#   aarch64-gnu  dcl (aarch64-unknown-linux-gnu, glibc 2.28 through zig) under
#             qemu-aarch64-static with Debian's arm64 libc (dpkg --add-architecture arm64;
#             apt-get install libc6:arm64): needs no glibc symbol newer than 2.28; -v; print
#             mode on the mock model with a Bash call
#   aarch64-python  the aarch64-unknown-linux-gnu wheel (manylinux_2_28) with an aarch64 Python
#             (Debian's arm64 packages, unpacked) under qemu-aarch64-static: `import dcl`
#             and one in-process query on the mock model through can_use_tool; the
#             wheel's own dcl -v
#   macos     the test binaries of dcl-sandbox, dcl-policy and dcl-store link for
#             aarch64-apple-darwin and x86_64-apple-darwin (Mach-O; a Mac runs them)
#   musl      dcl (x86_64-unknown-linux-musl): static; -v; print mode on the mock model with
#             a Bash call; then in an empty root holding nothing but dcl itself
#
#   bash tests/platforms/smoke.sh [windows] [aarch64] [aarch64-gnu] [aarch64-python] [macos] [musl]
#                                                                          (default: all)
#
# Needs: wine (8+; for wine 8 a bcryptprimitives.dll stand-in is built into the test's own
# prefix, tests/platforms/bcryptprimitives.c), qemu-user-static, mingw-w64, cargo-zigbuild + ziglang (scripts/dist-cross.sh
# installs those two from PyPI), unshare (util-linux) for the empty root.
# Env: SMOKE_PROFILE (cargo profile, default `small`), SMOKE_SKIP_BUILD=1 (reuse the build),
#      SMOKE_SDK_PYTHON (a python with claude-agent-sdk; default tests/.work/venv/bin/python).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
WORK="$ROOT/tests/.work/platforms"
export DIST_DIR="$WORK/dist"
PROFILE="${SMOKE_PROFILE:-small}"
STEPS=("$@")
[[ ${#STEPS[@]} -gt 0 ]] || STEPS=(windows aarch64 aarch64-gnu aarch64-python macos musl)
FAILED=0

log() { printf '[smoke] %s\n' "$*"; }
fail() {
  printf '[smoke] FAIL: %s\n' "$*" >&2
  FAILED=1
}
expect() { # expect <what> <needle> <haystack>
  if [[ "$3" == *"$2"* ]]; then log "ok: $1"; else fail "$1: no '$2' in: ${3:0:2000}"; fi
}
build() {
  [[ "${SMOKE_SKIP_BUILD:-0}" == 1 ]] && return
  local t0=$SECONDS
  bash "$ROOT/scripts/dist-cross.sh" "$1" --profile "$PROFILE" --only "${2:-dcl}"
  log "built $1 in $((SECONDS - t0)) s"
}

windows() {
  command -v wine >/dev/null || { fail "wine is missing (apt-get install wine wine64)"; return; }
  build x86_64-pc-windows-gnu
  local exe="$DIST_DIR/x86_64-pc-windows-gnu/dcl.exe"
  export WINEPREFIX="$WORK/wineprefix" WINEDEBUG=-all
  mkdir -p "$WINEPREFIX"
  timeout 300 wineboot --init >/dev/null 2>&1 || true
  # Wine 8 has no bcryptprimitives.dll (Rust's std takes random bytes from its ProcessPrng):
  # a stand-in over RtlGenRandom, in this prefix only.
  local sys32="$WINEPREFIX/drive_c/windows/system32"
  if [[ -d "$sys32" && ! -f "$sys32/bcryptprimitives.dll" ]]; then
    x86_64-w64-mingw32-gcc -O2 -shared -o "$sys32/bcryptprimitives.dll" \
      "$ROOT/tests/platforms/bcryptprimitives.c" -ladvapi32 -Wl,--export-all-symbols
  fi
  local d="$WORK/win-files"
  rm -rf "$d" && mkdir -p "$d/sub"
  # wine maps / to Z:, so the Linux path /x/y is Z:\x\y for dcl.exe.
  local w="Z:${d//\//\\}"
  local wj="${w//\\/\\\\}" # the same inside a JSON string
  run() { (cd "$d" && timeout 120 wine "$exe" "$@" 2>&1) || true; }
  tool() { # tool <name> <json>: one tool call through the mock model, stream-json out
    run -p "FAKE_TOOL $1 $2" --model mock-model --allowedTools "$1" --output-format stream-json --verbose
  }
  expect "dcl.exe -v" "0." "$(run -v)"
  expect "print mode on the mock model" "Hello from the fake model" "$(run -p hi --model mock-model)"

  tool Write "{\"file_path\":\"$wj\\\\sub\\\\a.txt\",\"content\":\"one\\r\\ntwo\\r\\n\"}" >/dev/null
  if [[ -f "$d/sub/a.txt" ]]; then log "ok: Write to $w\\sub\\a.txt"; else fail "Write did not create $d/sub/a.txt"; fi
  expect "Read of a Windows path" "two" "$(tool Read "{\"file_path\":\"$wj\\\\sub\\\\a.txt\"}")"
  printf 'alpha\r\nbeta\r\n' >"$d/crlf.txt"
  tool Read "{\"file_path\":\"$wj\\\\crlf.txt\"}" >/dev/null
  expect "Edit of a Windows path" "tool_result" "$(tool Edit "{\"file_path\":\"$wj\\\\crlf.txt\",\"old_string\":\"beta\",\"new_string\":\"gamma\"}")"
  if [[ "$(od -c "$d/crlf.txt")" == *'g   a   m   m   a  \r  \n'* && "$(od -c "$d/crlf.txt")" == *'a   l   p   h   a  \r  \n'* ]]; then
    log "ok: the CRLF file stayed CRLF"
  else
    fail "Edit changed the line endings: $(od -c "$d/crlf.txt" | head -3)"
  fi
  expect "Glob under a Windows path" "a.txt" "$(tool Glob "{\"pattern\":\"**/*.txt\",\"path\":\"$wj\"}")"
  expect "Grep under a Windows path" "a.txt" "$(tool Grep "{\"pattern\":\"two\",\"path\":\"$wj\"}")"
  # A stream-json session: claude-agent-sdk on Linux driving dcl.exe through a wrapper.
  local py="${SMOKE_SDK_PYTHON:-$ROOT/tests/.work/venv/bin/python}"
  if [[ -x "$py" ]] && "$py" -c 'import claude_agent_sdk' 2>/dev/null; then
    local wrapper="$WORK/dcl-wine"
    printf '#!/bin/sh\nexec wine "%s" "$@"\n' "$exe" >"$wrapper"
    chmod +x "$wrapper"
    rm -f "$d/sdk.txt"
    expect "claude-agent-sdk session over wine" "sdk.txt written: True" \
      "$(timeout 180 "$py" "$ROOT/tests/platforms/sdk_over_wine.py" "$wrapper" "$d" 2>&1 || true)"
  else
    log "skipped: claude-agent-sdk session (no SMOKE_SDK_PYTHON with claude_agent_sdk)"
  fi
  # No Git Bash in this wine prefix: the Bash tool must say what to install.
  expect "Bash without Git Bash names Git for Windows" "Git for Windows" \
    "$(run -p "please FAKE_BASH" --model mock-model --allowedTools Bash --output-format stream-json --verbose)"
  # Git Bash named by the reference's variable: a stand-in bash.exe (fake_git_bash.c; Git for
  # Windows comes from no package registry) runs the command.
  local bash_exe="$WORK/fake-git-bash/bash.exe"
  mkdir -p "$(dirname "$bash_exe")"
  x86_64-w64-mingw32-gcc -O2 -o "$bash_exe" "$ROOT/tests/platforms/fake_git_bash.c"
  local wbash="Z:${bash_exe//\//\\}"
  # (dcl prefixes the command with its working-directory tracking, so the text bash.exe got
  # ends with the command.)
  local ran
  ran="$(CLAUDE_CODE_GIT_BASH_PATH="$wbash" tool Bash '{"command":"echo via-git-bash"}')"
  expect "Bash through CLAUDE_CODE_GIT_BASH_PATH" '"content":"fake bash ran: ' "$ran"
  expect "the command reached Git Bash" 'echo via-git-bash","is_error":false' "$ran"
  # Windows has no HOME: the session's home is the user profile (wine's C:\users\<name>),
  # so the transcript is written and nothing warns of a missing home.
  if [[ "$ran" == *"no home for transcripts"* ]]; then
    fail "dcl.exe found no home (USERPROFILE) for its transcripts"
  else
    log "ok: the session's home is the user profile (transcripts written)"
  fi
  # Containment: a process a command leaves behind ends with dcl.exe (its Job Object).
  # The twin first: started by the same bash.exe outside dcl, the sleeper outlives it.
  local token="dcl-smoke-$$-$RANDOM"
  (cd "$d" && timeout 60 wine "$bash_exe" -c "spawn-sleeper $token-twin" >/dev/null 2>&1) || true
  sleep 2
  if pgrep -f "$token-twin" >/dev/null; then
    log "ok: outside dcl, the command's child outlives its bash (the twin)"
  else
    fail "the twin's sleeper is not running: the containment check below would prove nothing"
  fi
  pkill -f "$token-twin" || true
  expect "a command's child started under dcl.exe" "spawned" \
    "$(CLAUDE_CODE_GIT_BASH_PATH="$wbash" tool Bash "{\"command\":\"spawn-sleeper $token\"}")"
  local i
  for i in 1 2 3 4 5 6 7 8 9 10; do pgrep -f "$token" >/dev/null || break; sleep 1; done
  if pgrep -f "$token" >/dev/null; then
    fail "the command's child outlived dcl.exe: $(pgrep -af "$token")"
    pkill -f "$token" || true
  else
    log "ok: the command's child ended with dcl.exe (Job Object)"
  fi
}

aarch64() {
  local qemu
  qemu="$(command -v qemu-aarch64-static || true)"
  [[ -n "$qemu" ]] || { fail "qemu-aarch64-static is missing (apt-get install qemu-user-static)"; return; }
  build aarch64-unknown-linux-musl
  local exe="$DIST_DIR/aarch64-unknown-linux-musl/dcl"
  local home="$WORK/aarch64-home"
  mkdir -p "$home"
  expect "file: static aarch64" "ARM aarch64" "$(file -b "$exe")"
  expect "dcl -v under qemu" "0." "$("$qemu" "$exe" -v 2>&1)"
  expect "print mode with a Bash call under qemu" '"tool_use_id":"toolu_mock_1","content":"hi"' \
    "$(cd "$home" && HOME="$home" timeout 120 "$qemu" "$exe" -p "please FAKE_BASH" --model mock-model --allowedTools Bash --output-format stream-json --verbose 2>&1)"
  # An empty root: only /dcl (and /qemu to run it on this x86-64 machine).
  local r="$WORK/empty-root"
  rm -rf "$r" && mkdir -p "$r"
  cp "$exe" "$r/dcl"
  cp "$qemu" "$r/qemu"
  if unshare -r true 2>/dev/null; then
    expect "print mode in an empty root" "Hello from the fake model" \
      "$(HOME=/ timeout 120 unshare -r chroot "$r" /qemu /dcl -p hi --model mock-model 2>&1 || true)"
  else
    fail "unshare -r is not allowed here, so the empty-root run was skipped"
  fi
}

aarch64_gnu() {
  local qemu
  qemu="$(command -v qemu-aarch64-static || true)"
  [[ -n "$qemu" ]] || { fail "qemu-aarch64-static is missing (apt-get install qemu-user-static)"; return; }
  [[ -e /lib/ld-linux-aarch64.so.1 ]] ||
    { fail "no arm64 libc (dpkg --add-architecture arm64; apt-get update; apt-get install libc6:arm64)"; return; }
  build aarch64-unknown-linux-gnu
  local exe="$DIST_DIR/aarch64-unknown-linux-gnu/dcl"
  local home="$WORK/aarch64-gnu-home"
  mkdir -p "$home"
  expect "file: aarch64, glibc's loader" "interpreter /lib/ld-linux-aarch64.so.1" "$(file -b "$exe")"
  local newest
  newest="$(objdump -T "$exe" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -n 1)"
  if [[ "$(printf '%s\nGLIBC_2.28\n' "$newest" | sort -V | tail -n 1)" == GLIBC_2.28 ]]; then
    log "ok: newest glibc symbol $newest (manylinux_2_28)"
  else
    fail "needs $newest, newer than glibc 2.28"
  fi
  expect "dcl -v under qemu" "0." "$("$qemu" -L / "$exe" -v 2>&1)"
  expect "print mode with a Bash call under qemu" '"tool_use_id":"toolu_mock_1","content":"hi"' \
    "$(cd "$home" && HOME="$home" timeout 120 "$qemu" -L / "$exe" -p "please FAKE_BASH" --model mock-model --allowedTools Bash --output-format stream-json --verbose 2>&1)"
  # A stream-json session: claude-agent-sdk driving the aarch64 dcl through a wrapper
  # that runs it under the emulator (the same script drives dcl.exe under wine).
  local py="${SMOKE_SDK_PYTHON:-$ROOT/tests/.work/venv/bin/python}"
  if [[ -x "$py" ]] && "$py" -c 'import claude_agent_sdk' 2>/dev/null; then
    local wrapper="$WORK/dcl-qemu" d="$WORK/aarch64-gnu-sdk"
    printf '#!/bin/sh\nexec "%s" -L / "%s" "$@"\n' "$qemu" "$exe" >"$wrapper"
    chmod +x "$wrapper"
    rm -rf "$d" && mkdir -p "$d"
    expect "claude-agent-sdk session under qemu" "sdk.txt written: True" \
      "$(HOME="$home" timeout 180 "$py" "$ROOT/tests/platforms/sdk_over_wine.py" "$wrapper" "$d" 2>&1 || true)"
  else
    log "skipped: claude-agent-sdk session (no SMOKE_SDK_PYTHON with claude_agent_sdk)"
  fi
}

aarch64_python() {
  local qemu
  qemu="$(command -v qemu-aarch64-static || true)"
  [[ -n "$qemu" ]] || { fail "qemu-aarch64-static is missing (apt-get install qemu-user-static)"; return; }
  [[ -e /lib/ld-linux-aarch64.so.1 ]] ||
    { fail "no arm64 libc (dpkg --add-architecture arm64; apt-get update; apt-get install libc6:arm64)"; return; }
  build aarch64-unknown-linux-gnu wheel
  local wheels=("$DIST_DIR"/aarch64-unknown-linux-gnu/dcl-*-cp39-abi3-*aarch64.whl)
  [[ -f "${wheels[0]}" ]] || { fail "no aarch64 wheel in $DIST_DIR/aarch64-unknown-linux-gnu"; return; }
  expect "wheel tag manylinux_2_28 or older" "manylinux_2_" "$(basename "${wheels[0]}")"
  # An aarch64 Python: Debian's arm64 packages, downloaded and unpacked into a private root
  # (not installed: they would replace this machine's own python3).
  local root="$WORK/arm64-python" ver py
  ver="$(apt-cache depends python3 2>/dev/null | sed -n 's/^ *Depends: python3\.\([0-9]*\)$/\1/p' | head -n 1)"
  [[ -n "$ver" ]] || { fail "apt-cache names no python3.X this Debian ships"; return; }
  py="$root/usr/bin/python3.$ver"
  if [[ ! -x "$py" ]]; then
    local debs="$WORK/arm64-debs" p out
    rm -rf "$debs" "$root" && mkdir -p "$debs" "$root"
    for p in $(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
      --no-replaces --no-enhances --no-pre-depends "python3.$ver-minimal:arm64" "libpython3.$ver-stdlib:arm64" |
      grep -v '^ ' | grep ':arm64$' | grep -vE '^(libc6|dpkg|tar|install-info|gcc-[0-9]+-base):'); do
      # (apt warns that root downloads unsandboxed into a folder _apt cannot write: harmless.)
      out="$(cd "$debs" && apt-get download "$p" 2>&1)" || { fail "apt-get download $p: $out"; return; }
    done
    (cd "$debs" && apt-get download media-types >/dev/null 2>&1) || true
    for p in "$debs"/*.deb; do dpkg -x "$p" "$root"; done
  fi
  # The wheel unpacked where pip would put it (pip itself is no Debian package for arm64 here).
  local site="$WORK/arm64-site" home="$WORK/arm64-home"
  rm -rf "$site" "$home" && mkdir -p "$site" "$home"
  python3 -m zipfile -e "${wheels[0]}" "$site"
  expect "the wheel's extension is aarch64" "ARM aarch64" "$(file -b "$site"/dcl/_native*.so)"
  chmod +x "$site/dcl/_bin/dcl"
  expect "the wheel's dcl -v under qemu" "0." "$("$qemu" -L / "$site/dcl/_bin/dcl" -v 2>&1)"
  expect "import dcl + one in-process query on aarch64 Python" "aarch64 in-process query: ok" \
    "$(cd "$home" && HOME="$home" PYTHONPATH="$site:$ROOT/tests/install" timeout 300 "$qemu" -L "$root" "$py" \
      "$ROOT/tests/platforms/aarch64_query.py" "$home" 2>&1 || true)"
}

musl() {
  build x86_64-unknown-linux-musl
  local exe="$DIST_DIR/x86_64-unknown-linux-musl/dcl"
  local home="$WORK/musl-home"
  mkdir -p "$home"
  local kind
  kind="$(file -b "$exe")"
  expect "file: x86-64" "x86-64" "$kind"
  if [[ "$kind" == *"statically linked"* || "$kind" == *"static-pie linked"* ]]; then
    log "ok: file: static"
  else
    fail "file: not static: $kind"
  fi
  expect "dcl -v" "0." "$("$exe" -v 2>&1)"
  expect "print mode with a Bash call" '"tool_use_id":"toolu_mock_1","content":"hi"' \
    "$(cd "$home" && HOME="$home" timeout 120 "$exe" -p "please FAKE_BASH" --model mock-model --allowedTools Bash --output-format stream-json --verbose 2>&1)"
  # An empty root: nothing but /dcl (no libc, no /proc, no /tmp, no shell).
  local r="$WORK/musl-root"
  rm -rf "$r" && mkdir -p "$r"
  cp "$exe" "$r/dcl"
  if unshare -r true 2>/dev/null; then
    expect "print mode in an empty root" "Hello from the fake model" \
      "$(HOME=/ timeout 120 unshare -r chroot "$r" /dcl -p hi --model mock-model 2>&1 || true)"
  else
    fail "unshare -r is not allowed here, so the empty-root run was skipped"
  fi
}

# macOS, from Linux: the platform crates' test binaries link for both architectures (against
# scripts/macos_stubs.py's framework stubs); they cannot run here.
macos() {
  local t stubs
  # cargo-zigbuild and zig from the venv scripts/dist-cross.sh keeps (made here if missing).
  local zigenv="$ROOT/tests/.work/zigenv"
  if ! command -v cargo-zigbuild >/dev/null; then
    [[ -x "$zigenv/bin/cargo-zigbuild" ]] ||
      { python3 -m venv "$zigenv" && "$zigenv/bin/pip" install -q ziglang cargo-zigbuild; }
    export PATH="$zigenv/bin:$PATH"
  fi
  for t in aarch64-apple-darwin x86_64-apple-darwin; do
    rustup target list --installed | grep -qx "$t" || rustup target add "$t"
    stubs="$(python3 "$ROOT/scripts/macos_stubs.py" "${CARGO_TARGET_DIR:-$ROOT/target}/macos-stubs" --target "$t")"
    local out
    out="$(RUSTFLAGS="-C link-arg=-F$stubs -C link-arg=-L$stubs" cargo-zigbuild test --locked --no-run \
      --target "$t" -p dcl-sandbox -p dcl-policy -p dcl-store --message-format=json 2>/dev/null |
      python3 -c 'import json,sys; [print(m["executable"]) for m in map(json.loads, sys.stdin) if m.get("reason") == "compiler-artifact" and m.get("executable")]')"
    [[ -n "$out" ]] || { fail "$t: no test binary linked"; continue; }
    local exe n=0
    while read -r exe; do
      n=$((n + 1))
      expect "$t test binary $(basename "$exe")" "Mach-O 64-bit" "$(file -b "$exe")"
    done <<<"$out"
    log "$t: $n test binaries linked"
  done
}

t0=$SECONDS
for s in "${STEPS[@]}"; do
  case "$s" in
  windows) windows ;;
  aarch64) aarch64 ;;
  aarch64-gnu) aarch64_gnu ;;
  aarch64-python) aarch64_python ;;
  macos) macos ;;
  musl) musl ;;
  *) fail "unknown step $s" ;;
  esac
done
log "done in $((SECONDS - t0)) s"
exit "$FAILED"
