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


def parse(tree: str) -> dict[str, set[str]]:
    """`cargo tree --prefix none -f '{p}|{f}'` output as package -> the union of its features."""
    sets: dict[str, set[str]] = {}
    for line in tree.splitlines():
        line = line.removesuffix(" (*)").strip()
        if "|" not in line:
            continue
        package, features = line.rsplit("|", 1)
        sets.setdefault(package, set()).update(f for f in features.split(",") if f)
    return sets


def missing(normal: dict[str, set[str]], with_dev: dict[str, set[str]]) -> dict[str, list[str]]:
    """The features each package gets only through dev-dependencies."""
    return {p: sorted(f - normal[p]) for p, f in with_dev.items() if p in normal and f - normal[p]}


def feature_sets(edges: str) -> dict[str, set[str]]:
    out = subprocess.run(
        ["cargo", "tree", "--workspace", "-e", edges, "--prefix", "none", "-f", "{p}|{f}"],
        check=True, capture_output=True, text=True).stdout
    return parse(out)


def main() -> int:
    normal = feature_sets("normal,build")
    gaps = missing(normal, feature_sets("normal,build,dev"))
    if not gaps:
        print(f"feature sets: the build and the tests resolve the same features ({len(normal)} packages)")
        return 0
    print("feature sets: dev-dependencies turn on features the normal build lacks, so "
          "`cargo test` would compile these (and all above them) again; add them to "
          "core/test-support/Cargo.toml:", file=sys.stderr)
    for package, features in sorted(gaps.items()):
        print(f"  {package}: {', '.join(features)}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
