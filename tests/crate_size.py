#!/usr/bin/env python3
"""Counts a crate's non-test source lines and fails when one is over its budget.

Non-test means every line of `src/**/*.rs` except `#[cfg(test)]` modules (a
`#[cfg(test)] mod name { ... }` block, or a `#[cfg(test)] mod name;` file). Blank lines
and comments count: the budget is about how much there is to read.

Budgets (docs/architecture.md "Where the shape goes next"): the engine keeps the session only, so it
stays under its budget below; the tools, policy and model live in their own crates.

Usage: python3 tests/crate_size.py            (check every budget)
       python3 tests/crate_size.py core/tools  (print one crate's count)
"""
from __future__ import annotations

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# crate directory -> most non-test lines it may have
BUDGETS = {
    # 14,155 after skills, commands, plugins, agent definitions and memory files moved to
    # core/extensions; lower again when stream-json becomes a projection outside the
    # engine and the wire building leaves the turn (issue 39, stage 3).
    "core/engine": 14_500,
}

TEST_MOD = re.compile(r"^\s*#\[cfg\(test\)\]\s*$")
MOD_DECL = re.compile(r"^\s*(pub(\([^)]*\))?\s+)?mod\s+(\w+)\s*(;|\{)")


def non_test_lines(path: str, skipped: set[str]) -> int:
    """Lines of one file outside `#[cfg(test)]` modules; records test-only module files."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    count, i = 0, 0
    while i < len(lines):
        if TEST_MOD.match(lines[i]) and i + 1 < len(lines) and (m := MOD_DECL.match(lines[i + 1])):
            if m.group(4) == ";":
                base = os.path.dirname(path)
                stem = os.path.splitext(os.path.basename(path))[0]
                if stem not in ("mod", "lib", "main"):
                    base = os.path.join(base, stem)
                skipped.add(os.path.join(base, m.group(3) + ".rs"))
                skipped.add(os.path.join(base, m.group(3), "mod.rs"))
                i += 2
                continue
            depth, j = 0, i + 1
            while j < len(lines):
                depth += lines[j].count("{") - lines[j].count("}")
                j += 1
                if depth <= 0 and "{" in "".join(lines[i + 1 : j]):
                    break
            i = j
            continue
        count += 1
        i += 1
    return count


def crate_lines(crate: str) -> int:
    src = os.path.join(ROOT, crate, "src")
    files = sorted(
        os.path.join(d, n) for d, _, names in os.walk(src) for n in names if n.endswith(".rs")
    )
    skipped: set[str] = set()
    counts = {p: non_test_lines(p, skipped) for p in files}
    return sum(n for p, n in counts.items() if p not in skipped)


def main() -> int:
    if len(sys.argv) > 1:
        for crate in sys.argv[1:]:
            print(f"{crate}: {crate_lines(crate)} non-test lines")
        return 0
    over = 0
    for crate, budget in BUDGETS.items():
        n = crate_lines(crate)
        ok = n < budget
        over += not ok
        print(f"crate size: {crate}: {n} non-test lines (budget < {budget}){'' if ok else '  OVER'}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
