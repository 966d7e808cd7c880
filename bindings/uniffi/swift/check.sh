#!/usr/bin/env bash
# The Swift sources checked in here are what uniffi-bindgen makes of the built library now:
# regenerated into a temporary directory and compared. No Swift toolchain is needed (nor
# here: there is none on this machine); `--write` refreshes the checked-in copy.
# Usage: check.sh <libdcl_uniffi.so> [--write]; env UNIFFI_BINDGEN (the generator binary).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../../.." && pwd)"
LIB="${1:?usage: check.sh <libdcl_uniffi.so> [--write]}"
BINDGEN="${UNIFFI_BINDGEN:?UNIFFI_BINDGEN: the uniffi-bindgen binary}"
OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
# From the workspace root: library mode finds bindings/uniffi/uniffi.toml through cargo metadata.
(cd "$ROOT" && "$BINDGEN" generate --library "$LIB" --language swift --no-format --out-dir "$OUT" >/dev/null)
if [[ "${2:-}" == --write ]]; then
  find "$HERE" -maxdepth 1 -type f ! -name check.sh ! -name README.md -delete
  cp "$OUT"/* "$HERE"/
  echo "swift: wrote $(ls "$OUT" | tr '\n' ' ')"
  exit 0
fi
if ! diff -r -x check.sh -x README.md "$HERE" "$OUT"; then
  echo "swift: bindings/uniffi/swift is stale: run bindings/uniffi/swift/check.sh <lib> --write" >&2
  exit 1
fi
echo "swift: bindings/uniffi/swift is current ($(ls "$OUT" | tr '\n' ' '))"
