#!/usr/bin/env python3
"""Fails when the workspace's dev-dependencies turn on a feature its normal build lacks.

`cargo build --workspace` and `cargo test --workspace` share their compiled dependencies
only when both resolve the same features; a feature only a dev-dependency asks for makes
`cargo test` compile the crate, and everything above it, a second time (in CI that was 153
crates). dcl-test-support lists such features as its own dependencies; this check names any
that are missing. Usage: python3 scripts/feature_sets.py
"""
from __future__ import annotations

import subprocess
import sys


def feature_sets(edges: str) -> dict[str, set[str]]:
    out = subprocess.run(
        ["cargo", "tree", "--workspace", "-e", edges, "--prefix", "none",
         "-f", "{p}|{f}"],
        check=True, capture_output=True, text=True).stdout
    sets: dict[str, set[str]] = {}
    for line in out.splitlines():
        line = line.removesuffix(" (*)").strip()
        if "|" not in line:
            continue
        package, features = line.rsplit("|", 1)
        sets.setdefault(package, set()).update(f for f in features.split(",") if f)
    return sets


def main() -> int:
    normal = feature_sets("normal,build")
    with_dev = feature_sets("normal,build,dev")
    missing = {p: sorted(f - normal[p]) for p, f in with_dev.items()
               if p in normal and f - normal[p]}
    if not missing:
        print(f"feature sets: the build and the tests resolve the same features ({len(normal)} packages)")
        return 0
    print("feature sets: dev-dependencies turn on features the normal build lacks, so "
          "`cargo test` would compile these (and all above them) again; add them to "
          "core/test-support/Cargo.toml:", file=sys.stderr)
    for package, features in sorted(missing.items()):
        print(f"  {package}: {', '.join(features)}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
