#!/usr/bin/env python3
"""Checks the cross-built executables in dist/<target>/ (scripts/dist.sh --target/--all):
each is the file its target needs, as `file` describes it (Mach-O arm64, PE32+ x86-64,
static aarch64 ELF, ...).

    python3 tests/install/check_targets.py [dist-dir] [--all]

Without --all, the targets present are checked and the missing ones listed; with --all a
missing target is a failure. Only the executables: the wheels, npm packages and jar are
built for x86_64-unknown-linux-gnu only so far (scripts/dist.sh says so)."""

import re
import subprocess
import sys
from pathlib import Path

TARGETS = {
    "x86_64-unknown-linux-gnu": ("dcl", r"ELF 64-bit LSB .*x86-64"),
    "aarch64-unknown-linux-gnu": ("dcl", r"ELF 64-bit LSB .*ARM aarch64"),
    "x86_64-unknown-linux-musl": ("dcl", r"ELF 64-bit LSB .*x86-64.*static"),
    "aarch64-unknown-linux-musl": ("dcl", r"ELF 64-bit LSB .*ARM aarch64.*static"),
    "x86_64-apple-darwin": ("dcl", r"Mach-O 64-bit .*x86_64"),
    "aarch64-apple-darwin": ("dcl", r"Mach-O 64-bit .*arm64"),
    "x86_64-pc-windows-gnu": ("dcl.exe", r"PE32\+ executable .*x86-64"),
}


def main() -> int:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    strict = "--all" in sys.argv
    dist = Path(args[0]) if args else Path(__file__).resolve().parents[2] / "dist"
    failed, missing = [], []
    for target, (name, pattern) in TARGETS.items():
        exe = dist / target / name
        if not exe.is_file():
            missing.append(target)
            continue
        desc = subprocess.run(["file", "-b", str(exe)], capture_output=True, text=True).stdout
        if re.search(pattern, desc):
            print(f"ok   {target}: {exe.stat().st_size} bytes, {desc.strip()[:80]}")
        else:
            failed.append(f"{target}: {desc.strip()}")
    for f in failed:
        print(f"FAIL {f}")
    if missing:
        print(("FAIL" if strict else "note") + " missing: " + ", ".join(missing))
    return 1 if failed or (strict and missing) else 0


if __name__ == "__main__":
    sys.exit(main())
