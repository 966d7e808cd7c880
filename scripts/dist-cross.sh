#!/usr/bin/env bash
# Cross-builds the `dcl` executable for one target into dist/<target>/ (called by
# scripts/dist.sh for `--only dcl` and for every target but this machine's own).
#
#   bash scripts/dist-cross.sh <target> [--profile <cargo profile>]
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
# Needs: rustup targets (added on demand), cargo-zigbuild + ziglang (installed into
# tests/.work/zigenv from PyPI when missing), mingw-w64 for Windows, file.
# Env: CARGO_TARGET_DIR (default target/), DIST_DIR (default dist/).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
DIST="${DIST_DIR:-$ROOT/dist}"
TARGET="${1:?usage: dist-cross.sh <target> [--profile <profile>]}"
shift
PROFILE=release
while [[ $# -gt 0 ]]; do
  case "$1" in
  --profile) PROFILE="$2"; shift 2 ;;
  *) echo "dist-cross: unknown argument $1" >&2; exit 2 ;;
  esac
done

log() { printf '[dist-cross] %s\n' "$*"; }
die() { printf '[dist-cross] error: %s\n' "$*" >&2; exit 1; }

# cargo-zigbuild finds zig as `python3 -m ziglang`: its venv's bin goes first on PATH.
zigbuild() {
  if command -v cargo-zigbuild >/dev/null; then
    return
  fi
  local venv="$ROOT/tests/.work/zigenv"
  if [[ ! -x "$venv/bin/cargo-zigbuild" ]]; then
    python3 -m venv "$venv" >&2
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check ziglang cargo-zigbuild >&2
  fi
  export PATH="$venv/bin:$PATH"
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

rustup target list --installed | grep -qx "$TRIPLE" || rustup target add "$TRIPLE"
t0=$SECONDS
HOST="$(rustc -vV | sed -n 's/^host: //p')"
if [[ "$TRIPLE" == *windows-gnu && "$HOST" == *linux* ]]; then
  command -v x86_64-w64-mingw32-gcc >/dev/null || die "x86_64-w64-mingw32-gcc is missing (apt-get install mingw-w64)"
  CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc \
    RUSTFLAGS="${RUSTFLAGS:-} -C target-feature=+crt-static" \
    cargo build --locked --profile "$PROFILE" --target "$TRIPLE" -p dcl-cli --bin dcl
elif [[ "$TRIPLE" == *linux* || ("$TRIPLE" == *apple-darwin && "$HOST" != *apple-darwin) ]]; then
  # Linux: zig's glibc 2.28 or static musl on any host; macOS from elsewhere.
  zigbuild
  cargo-zigbuild zigbuild --locked --profile "$PROFILE" --target "$TARGET" -p dcl-cli --bin dcl
else
  # Native runners (macOS, Windows): the platform's own toolchain; rustup's windows-gnu
  # target brings its own mingw linker there.
  RUSTFLAGS="${RUSTFLAGS:-} $([[ "$TRIPLE" == *windows* ]] && echo "-C target-feature=+crt-static")" \
    cargo build --locked --profile "$PROFILE" --target "$TRIPLE" -p dcl-cli --bin dcl
fi
dir="$PROFILE"
[[ "$PROFILE" == dev ]] && dir=debug
OUT="$CARGO_TARGET_DIR/$TRIPLE/$dir/$EXE"
[[ -f "$OUT" ]] || die "no $OUT after the build"
desc="$(file -b "$OUT")"
[[ "$desc" =~ $EXPECT ]] || die "$OUT is not what $TRIPLE needs: $desc"
mkdir -p "$DIST/$TRIPLE"
install -m 0755 "$OUT" "$DIST/$TRIPLE/$EXE"
log "$TRIPLE: $DIST/$TRIPLE/$EXE $(stat -c %s "$OUT") bytes, $((SECONDS - t0)) s ($desc)"
