#!/usr/bin/env bash
# Cross-builds every artifact of one target into dist/<target>/ (called by scripts/dist.sh
# for every target but this machine's own, and for `--only dcl`):
#
#   dcl[.exe]                                   the executable (static where the platform allows)
#   dcl-<v>-cp39-abi3-<platform tag>.whl        Python: the extension + the executable as dcl/_bin/
#   dcl-agent-<napi platform>-<v>.tgz           npm @dcl/agent-<napi platform>: addon + bin/dcl
#   java/<os>-<arch>/{lib,}dcl_java.* + dcl     the JNI library and executable, with .sha256 each,
#                                               for the one jar scripts/dist.sh --all assembles
#   c/{libdcl.so|libdcl.dylib|dcl.dll, dcl.h}   the C library and its header (+ libdcl.dll.a,
#                                               the import library, on Windows)
#   go.ok                                       Linux and macOS: the Go module built with cgo
#                                               against c/ (`go vet` + `go build` for the target)
#
#   bash scripts/dist-cross.sh <target> [--profile <cargo profile>] [--only dcl,wheel,npm,jni,c,go]
#
# Targets and how each is built from Linux x86-64:
#   x86_64-unknown-linux-gnu                    cargo-zigbuild, glibc 2.28 (manylinux_2_28)
#   aarch64-unknown-linux-gnu                   cargo-zigbuild, glibc 2.28
#   x86_64-unknown-linux-musl                   cargo-zigbuild, static
#   aarch64-unknown-linux-musl                  cargo-zigbuild, static
#   x86_64-apple-darwin, aarch64-apple-darwin   cargo-zigbuild (libSystem is always dynamic)
#   x86_64-pc-windows-gnu                       cargo + Debian's mingw-w64, +crt-static
#
# windows-gnu, not -msvc: it cross-links here with mingw-w64 (a Debian package) and
# produces a dcl.exe that needs no Visual C++ runtime (crt-static); -msvc needs the MSVC
# linker and Windows SDK libraries, which cannot be installed here (cargo-xwin downloads
# them under Microsoft's licence terms).
#
# Each artifact is one build of one crate for the target; the crates they share are compiled
# once per target and profile (one target dir). The wheel is built by maturin (with --zig off
# Windows), the addon, JNI and C libraries by cargo(-zigbuild) as cdylibs, packed here.
#
# Needs: rustup targets (added on demand), cargo-zigbuild + ziglang + maturin (installed into
# tests/.work/zigenv from PyPI when missing), mingw-w64 for Windows, file, node + npm (pack),
# go (the cgo check; skipped with a warning when missing), python3.
# Env: CARGO_TARGET_DIR (default target/), DIST_DIR (default dist/).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
DIST="${DIST_DIR:-$ROOT/dist}"
TARGET="${1:?usage: dist-cross.sh <target> [--profile <profile>]}"
shift
PROFILE=release ONLY=""
while [[ $# -gt 0 ]]; do
  case "$1" in
  --profile) PROFILE="$2"; shift 2 ;;
  --only) ONLY="$2"; shift 2 ;;
  *) echo "dist-cross: unknown argument $1" >&2; exit 2 ;;
  esac
done

log() { printf '[dist-cross] %s\n' "$*"; }
die() { printf '[dist-cross] error: %s\n' "$*" >&2; exit 1; }

# cargo-zigbuild finds zig as `python3 -m ziglang`: its venv's bin goes first on PATH.
ZIGENV="$ROOT/tests/.work/zigenv"
MATURIN_VERSION=1.16.0
zigenv() {
  if [[ ! -x "$ZIGENV/bin/maturin" ]] || [[ "$("$ZIGENV/bin/maturin" --version)" != "maturin $MATURIN_VERSION" ]]; then
    python3 -m venv "$ZIGENV" >&2
    "$ZIGENV/bin/python" -m pip install --quiet --disable-pip-version-check ziglang cargo-zigbuild "maturin==$MATURIN_VERSION" >&2
  fi
}
zigbuild() {
  zigenv
  if command -v cargo-zigbuild >/dev/null; then
    return
  fi
  export PATH="$ZIGENV/bin:$PATH"
}

# The cargo target triple (zig's glibc suffix dropped) and how `file` must describe it.
TRIPLE="${TARGET%%.2.*}"
case "$TARGET" in
x86_64-unknown-linux-gnu | aarch64-unknown-linux-gnu) TARGET="$TARGET.2.28" ;;
esac
case "$TRIPLE" in
x86_64-unknown-linux-gnu) EXPECT="ELF 64-bit LSB.*x86-64" EXE=dcl ;;
aarch64-unknown-linux-gnu) EXPECT="ELF 64-bit LSB.*ARM aarch64" EXE=dcl ;;
x86_64-unknown-linux-musl) EXPECT="ELF 64-bit LSB.*x86-64.*static" EXE=dcl ;;
aarch64-unknown-linux-musl) EXPECT="ELF 64-bit LSB.*ARM aarch64.*static" EXE=dcl ;;
x86_64-apple-darwin) EXPECT="Mach-O 64-bit.*x86_64" EXE=dcl ;;
aarch64-apple-darwin) EXPECT="Mach-O 64-bit.*arm64" EXE=dcl ;;
x86_64-pc-windows-gnu) EXPECT="PE32\+ executable.*x86-64" EXE=dcl.exe ;;
*) die "unknown target $TARGET (see the list at the top of this script)" ;;
esac

# napi-rs's platform name, the jar's native/ directory (NativeBridge.platform), the wheel's
# platform policy for maturin, and the shared-library names of the target.
case "$TRIPLE" in
x86_64-unknown-linux-gnu) NAPI=linux-x64-gnu JDIR=linux-x86_64 WHEEL=manylinux_2_28 ;;
aarch64-unknown-linux-gnu) NAPI=linux-arm64-gnu JDIR=linux-aarch64 WHEEL=manylinux_2_28 ;;
x86_64-unknown-linux-musl) NAPI=linux-x64-musl JDIR=linux-musl-x86_64 WHEEL=musllinux_1_2 ;;
aarch64-unknown-linux-musl) NAPI=linux-arm64-musl JDIR=linux-musl-aarch64 WHEEL=musllinux_1_2 ;;
x86_64-apple-darwin) NAPI=darwin-x64 JDIR=darwin-x86_64 WHEEL="" ;;
aarch64-apple-darwin) NAPI=darwin-arm64 JDIR=darwin-aarch64 WHEEL="" ;;
x86_64-pc-windows-gnu) NAPI=win32-x64-gnu JDIR=windows-x86_64 WHEEL="" ;;
esac
case "$TRIPLE" in
*linux*) so() { echo "lib$1.so"; } ;;
*apple*) so() { echo "lib$1.dylib"; } ;;
*windows*) so() { echo "$1.dll"; } ;;
esac

rustup target list --installed | grep -qx "$TRIPLE" || rustup target add "$TRIPLE"
HOST="$(rustc -vV | sed -n 's/^host: //p')"
dir="$PROFILE"
[[ "$PROFILE" == dev ]] && dir=debug
OUTDIR="$CARGO_TARGET_DIR/$TRIPLE/$dir"
mkdir -p "$DIST/$TRIPLE"
OUT="$DIST/$TRIPLE"

# How this target is built from this host: ZIG (cargo-zigbuild) for Linux on any host and
# macOS from elsewhere (zig's glibc 2.28, static musl, libSystem + the frameworks' stubs);
# Debian's mingw-w64 for Windows from Linux; the platform's own toolchain natively.
MODE=native
if [[ "$TRIPLE" == *windows-gnu && "$HOST" == *linux* ]]; then
  MODE=mingw
  command -v x86_64-w64-mingw32-gcc >/dev/null || die "x86_64-w64-mingw32-gcc is missing (apt-get install mingw-w64)"
  export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc
  # napi's build script for windows-gnu wants MinGW Node's libnode.dll to link the addon
  # against. The addon resolves Node's functions at run time from the process that loads it
  # (napi-sys's dyn-symbols), so it imports nothing from there: an empty DLL of that name
  # satisfies the build script, and npm_package() checks no import of it is left, so the
  # addon loads into the official node.exe.
  libnode="$CARGO_TARGET_DIR/libnode-stub"
  mkdir -p "$libnode"
  [[ -f "$libnode/libnode.dll" ]] || printf 'int dcl_libnode_stub;\n' |
    x86_64-w64-mingw32-gcc -shared -x c - -o "$libnode/libnode.dll"
  export LIBNODE_PATH="$libnode"
elif [[ "$TRIPLE" == *linux* || ("$TRIPLE" == *apple-darwin && "$HOST" != *apple-darwin) ]]; then
  MODE=zig
  zigbuild
fi
# crt-static: Windows needs no libgcc/winpthread DLLs beside dcl.exe and the libraries.
# musl: the executable is static (the target's default); a library is loaded by a musl
# Python, Node or JVM, so it links musl dynamically — the other crt-static setting, hence
# its own RUSTFLAGS (and a second compile of the shared crates) below.
BASE_RUSTFLAGS="${RUSTFLAGS:-}"
[[ "$TRIPLE" == *windows* ]] && BASE_RUSTFLAGS="$BASE_RUSTFLAGS -C target-feature=+crt-static"
if [[ "$MODE" == zig && "$TRIPLE" == *apple-darwin ]]; then
  stubs="$(python3 "$ROOT/scripts/macos_stubs.py" "$CARGO_TARGET_DIR/macos-stubs" --target "$TRIPLE")"
  BASE_RUSTFLAGS="$BASE_RUSTFLAGS -C link-arg=-F$stubs -C link-arg=-L$stubs"
fi
LIB_RUSTFLAGS="$BASE_RUSTFLAGS"
[[ "$TRIPLE" == *musl ]] && LIB_RUSTFLAGS="$BASE_RUSTFLAGS -C target-feature=-crt-static"
# maturin sets the oldest macOS a wheel supports (its default); every build here uses the same
# value, or rustc's own default would make each crate compile twice, once for the wheel.
case "$TRIPLE" in
aarch64-apple-darwin) export MACOSX_DEPLOYMENT_TARGET="${MACOSX_DEPLOYMENT_TARGET:-11.0}" ;;
x86_64-apple-darwin) export MACOSX_DEPLOYMENT_TARGET="${MACOSX_DEPLOYMENT_TARGET:-10.12}" ;;
esac

xcargo() { # xcargo <build|rustc> <args...>: cargo for this target in MODE
  local sub="$1"
  shift
  if [[ "$MODE" == zig ]]; then
    [[ "$sub" == build ]] && sub=zigbuild
    cargo-zigbuild "$sub" --locked --profile "$PROFILE" --target "$TARGET" "$@"
  else
    cargo "$sub" --locked --profile "$PROFILE" --target "$TRIPLE" "$@"
  fi
}
TIMES=()
step() { # step <name> <command...>: runs and records the wall time
  local name="$1" t0=$SECONDS
  shift
  log "== $TRIPLE: $name"
  "$@"
  TIMES+=("$(printf '%-10s %4ds' "$name" "$((SECONDS - t0))")")
}
checksum() { # checksum <file>: <file>.sha256 as NativeBridge reads it
  (cd "$(dirname "$1")" && sha256sum "$(basename "$1")" >"$(basename "$1").sha256")
}
VERSION="$(cargo metadata --no-deps --format-version 1 --offline --manifest-path "$ROOT/Cargo.toml" |
  python3 -c 'import json,sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "dcl-cli"))')"

# The executable and the libraries (addon, JNI, C) in one cargo run where they link alike:
# the crates they share are compiled once, with one feature set — and always all three, so
# the executable every artifact carries is the same whichever subset --only asks for
# (`--only dcl` alone builds just the executable, for the smoke tests). musl's libraries
# link musl dynamically, so there they are a second run (cdylib below).
LIBS_WITH_EXE=()
if [[ "$TRIPLE" != *musl && "$ONLY" != dcl ]]; then
  LIBS_WITH_EXE=(-p dcl-node -p dcl-java -p dcl-c)
fi
exe() {
  if [[ ${#LIBS_WITH_EXE[@]} -gt 0 ]]; then
    RUSTFLAGS="$BASE_RUSTFLAGS" xcargo build -p dcl-cli --bin dcl "${LIBS_WITH_EXE[@]}" --lib
  else
    RUSTFLAGS="$BASE_RUSTFLAGS" xcargo build -p dcl-cli --bin dcl
  fi
  local built="$OUTDIR/$EXE"
  [[ -f "$built" ]] || die "no $built after the build"
  local desc
  desc="$(file -b "$built")"
  [[ "$desc" =~ $EXPECT ]] || die "$built is not what $TRIPLE needs: $desc"
  install -m 0755 "$built" "$OUT/$EXE"
  log "$TRIPLE: $OUT/$EXE $(stat -c %s "$built") bytes ($desc)"
}

cdylib() { # cdylib <package> <lib name>: the package's library as a cdylib, prints its path
  # (built with the executable above but on musl)
  [[ "$TRIPLE" == *musl ]] && RUSTFLAGS="$LIB_RUSTFLAGS" xcargo build -p "$1" --lib >&2
  local built="$OUTDIR/$(so "$2")"
  [[ -f "$built" ]] || die "no $built after the build"
  echo "$built"
}

wheel() {
  # The executable rides in the wheel as dcl/_bin/dcl[.exe] (dcl.cli runs it). That folder is
  # in the checkout, so builds of two targets at once take turns (flock) instead of packing
  # each other's executable, or none.
  exec 9>"$ROOT/python/.dist-wheel.lock"
  flock 9
  local bin="$ROOT/python/src/dcl/_bin"
  rm -rf "$bin"
  mkdir -p "$bin"
  install -m 0755 "$OUT/$EXE" "$bin/$EXE"
  local args=(build --locked --profile "$PROFILE" --target "$TRIPLE" --out "$OUT")
  [[ "$MODE" == zig ]] && args+=(--zig)
  [[ -n "$WHEEL" ]] && args+=(--compatibility "$WHEEL")
  (cd "$ROOT/python" && RUSTFLAGS="$LIB_RUSTFLAGS" "$ZIGENV/bin/maturin" "${args[@]}") || {
    rm -rf "$bin"
    die "maturin failed for $TRIPLE"
  }
  rm -rf "$bin"
  flock -u 9
}

npm_package() {
  local addon stage="$CARGO_TARGET_DIR/npm-$NAPI"
  addon="$(cdylib dcl-node dcl_node)"
  rm -rf "$stage"
  mkdir -p "$stage/bin"
  if [[ "$TRIPLE" == *windows* ]] && command -v x86_64-w64-mingw32-objdump >/dev/null; then
    local imports
    imports="$(x86_64-w64-mingw32-objdump -p "$addon" | sed -n 's/^\s*DLL Name: //p' | tr '\n' ' ')"
    [[ "$imports" != *libnode* && "$imports" != *node.exe* ]] ||
      die "the Windows addon imports from Node's own DLL ($imports): it would load into MinGW's Node only"
    log "$TRIPLE: the addon imports only $imports"
  fi
  install -m 0755 "$addon" "$stage/dcl-node.$NAPI.node"
  install -m 0755 "$OUT/$EXE" "$stage/bin/$EXE"
  python3 "$ROOT/scripts/npm_platform.py" "$NAPI" "$VERSION" "$stage"
  (cd "$stage" && npm pack --ignore-scripts --silent --pack-destination "$OUT" >/dev/null)
}

jni() {
  local lib jd="$OUT/java/$JDIR"
  lib="$(cdylib dcl-java dcl_java)"
  rm -rf "$jd"
  mkdir -p "$jd"
  install -m 0755 "$lib" "$jd/$(so dcl_java)"
  install -m 0755 "$OUT/$EXE" "$jd/$EXE"
  checksum "$jd/$(so dcl_java)"
  checksum "$jd/$EXE"
}

c_library() {
  local lib
  lib="$(cdylib dcl-c dcl)"
  rm -rf "$OUT/c"
  mkdir -p "$OUT/c"
  install -m 0755 "$lib" "$OUT/c/$(so dcl)"
  # mingw writes the import library a Windows linker needs beside the DLL.
  if [[ -f "$OUTDIR/libdcl.dll.a" ]]; then install -m 0644 "$OUTDIR/libdcl.dll.a" "$OUT/c/libdcl.dll.a"; fi
  install -m 0644 "$ROOT/bindings/c/include/dcl.h" "$OUT/c/dcl.h"
}

go_module() {
  if ! command -v go >/dev/null; then
    log "warning: go is not on PATH: the Go module's cgo build for $TRIPLE is not checked"
    return
  fi
  local goos goarch cc="$CARGO_TARGET_DIR/zigcc-go-$TRIPLE"
  case "$TRIPLE" in *linux*) goos=linux ;; *apple*) goos=darwin ;; esac
  case "$TRIPLE" in x86_64*) goarch=amd64 ;; aarch64*) goarch=arm64 ;; esac
  local ztarget="${TARGET/-unknown-/-}"
  ztarget="${ztarget/-apple-darwin/-macos}"
  # Go's CC is one command: a wrapper running zig's C compiler for the target.
  if [[ "$MODE" == zig ]]; then
    printf '#!/bin/sh\nexec "%s" -m ziglang cc -target %s "$@"\n' "$ZIGENV/bin/python" "$ztarget" >"$cc"
    chmod +x "$cc"
  else
    cc="${CC:-cc}"
  fi
  local ldflags="-L$OUT/c"
  if [[ "$TRIPLE" == *apple* && "$MODE" == zig ]]; then
    python3 "$ROOT/scripts/macos_stubs.py" "$stubs" --target "$TRIPLE" --go-root "$(go env GOROOT)" >/dev/null
    ldflags="$ldflags -F$stubs -L$stubs"
  fi
  # A test binary links (a package build alone does not): proof the module links libdcl.
  # -w: no DWARF, else Go's macOS link runs dsymutil and `strip -S`, which only a Mac has.
  local goldflags=()
  [[ "$TRIPLE" == *apple* && "$MODE" == zig ]] && goldflags=(-ldflags=-w)
  (cd "$ROOT/go" && CGO_ENABLED=1 GOOS="$goos" GOARCH="$goarch" CC="$cc" CGO_LDFLAGS="$ldflags" \
    GOFLAGS=-mod=mod go test -c "${goldflags[@]}" -o "$CARGO_TARGET_DIR/go-$TRIPLE.test" .)
  local desc
  desc="$(file -b "$CARGO_TARGET_DIR/go-$TRIPLE.test")"
  [[ "$desc" =~ ${EXPECT%%.\*static} ]] || die "the Go test binary is not for $TRIPLE: $desc"
  echo "$desc" >"$OUT/go.ok"
}

# --only: a comma-separated subset of dcl,wheel,npm,jni,c,go (the executable is always built:
# the others carry it).
wanted() { [[ -z "$ONLY" || ",$ONLY," == *",$1,"* ]]; }
for a in ${ONLY//,/ }; do
  [[ "$a" =~ ^(dcl|wheel|npm|jni|c|go)$ ]] || die "--only knows dcl, wheel, npm, jni, c and go, not '$a'"
done
step dcl exe
[[ "$ONLY" == dcl ]] && exit 0
zigenv
if wanted wheel; then step wheel wheel; fi
if wanted npm; then step npm npm_package; fi
if wanted jni; then step jni jni; fi
if wanted c || wanted go; then step c c_library; fi
if [[ "$TRIPLE" != *windows* ]] && wanted go; then step go go_module; fi
log "$TRIPLE: artifacts in $OUT:"
(cd "$OUT" && find . -type f | sort | while read -r f; do printf '[dist-cross]   %10d  %s\n' "$(stat -c %s "$f")" "$f"; done)
for t in "${TIMES[@]}"; do log "  $TRIPLE $t"; done
