#!/usr/bin/env python3
"""Fails on `Result<_, String>` in the non-test Rust code of `core/` and `cli/` (issue 19:
errors are types at every crate boundary). A `String` error says nothing a caller can
match on, so each crate names its failures in a `thiserror` enum instead.

Exempt: `tests/` directories, `benches/`, and items marked `#[cfg(test)]` (test modules,
test-only functions and impls). Comments and string literals are not read. The generic
arguments are parsed with their nesting, so `Result<Vec<String>, String>` and a
`Result<..., String>` spread over several lines are found too.

Each finding is printed as `typed-errors: path:line: ...` (path relative to the
repository). KNOWN lists, per file, findings allowed for now in code this issue does not
own; an entry may only shrink (a file with more findings than listed fails, one with fewer
is reported so the entry can be tightened).

Usage: python3 tests/typed_errors.py [file.rs ...]   (without files: all of core/ and cli/)
"""
from __future__ import annotations

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rust_source import strip_comments_and_strings, strip_test_items  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TREES = ["core", "cli"]
SKIP_DIRS = {"tests", "benches", "target", "node_modules"}

# file -> findings allowed there for now (none are left; an entry may only shrink).
KNOWN: dict[str, int] = {}


OPEN, CLOSE = "<([", ">)]"


def generic_args(text: str, start: int) -> tuple[list[str], int] | None:
    """The top-level arguments of the `<...>` opening at `start`, and where it closes."""
    depth, i, cur, args = 0, start, [], []
    while i < len(text):
        ch = text[i]
        if ch == "-" and text.startswith("->", i):  # a `fn() -> T` inside the arguments
            cur.append("->")
            i += 2
            continue
        if ch in OPEN:
            depth += 1
            if depth == 1:
                i += 1
                continue
        elif ch in CLOSE:
            depth -= 1
            if depth == 0:
                args.append("".join(cur))
                # rustfmt leaves a trailing comma after the last argument of a split list
                return [a for a in args if a.strip()], i
        elif ch == "," and depth == 1:
            args.append("".join(cur))
            cur = []
            i += 1
            continue
        elif ch in "{;":  # not a type: `a < b` in an expression
            return None
        cur.append(ch)
        i += 1
    return None


def findings(text: str) -> list[tuple[int, str]]:
    """(line, the `Result<...>` as written) for each `Result<_, String>` outside test code."""
    code = strip_test_items(strip_comments_and_strings(text))
    out = []
    for m in re.finditer(r"(?<![\w])Result\s*<", code):
        parsed = generic_args(code, m.end() - 1)
        if not parsed:
            continue
        args, end = parsed
        if len(args) == 2 and re.sub(r"\s+", "", args[1]) in ("String", "std::string::String", "alloc::string::String"):
            line = code.count("\n", 0, m.start()) + 1
            shown = re.sub(r"\s+", " ", code[m.start() : end + 1]).replace("< ", "<").replace(" >", ">")
            out.append((line, shown))
    return out


def rust_files() -> list[str]:
    files = []
    for tree in TREES:
        for dirpath, dirnames, filenames in os.walk(os.path.join(ROOT, tree)):
            dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
            files.extend(os.path.join(dirpath, f) for f in sorted(filenames) if f.endswith(".rs"))
    return files


def main(argv: list[str]) -> int:
    paths = [os.path.abspath(p) for p in argv] or rust_files()
    failed, total = False, 0
    for path in paths:
        rel = os.path.relpath(path, ROOT)
        with open(path, encoding="utf-8") as f:
            found = findings(f.read())
        total += len(found)
        allowed = KNOWN.get(rel, 0)
        if len(found) > allowed:
            failed = True
            for line, shown in found:
                print(f"typed-errors: {rel}:{line}: `{shown}` returns a String error; give the failure a type (a thiserror enum)")
        elif len(found) < allowed:
            print(f"typed-errors: {rel}: {len(found)} of the {allowed} known String errors left; lower its KNOWN entry")
    print(f"typed-errors: {len(paths)} files checked, {total} String errors ({sum(KNOWN.values())} known)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
