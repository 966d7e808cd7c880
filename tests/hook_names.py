#!/usr/bin/env python3
"""Hook event names are string literals in one module only: core/events/src/hooks.rs, the
list of hook events. Everywhere else in core/ an event is a type (`dcl_events::hook_input::
PreToolUse`) or a `HookEventName` value, so a renamed or added event cannot leave a stale
spelling behind.

Scans every .rs file under core/ except test code (`tests/`, `benches/`, `#[cfg(test)]`
items) for a string literal whose whole text is a hook event name (the names come from
core/events/schema/hook-events.json, which a Rust test keeps equal to the list). Text that
merely mentions an event ("a PreToolUse hook stopped the turn") is prose, not a name, and
passes. Exit 1 with file:line for each finding. Run by `.ci/run`'s layering phase.

Usage: python3 tests/hook_names.py [root]
"""
from __future__ import annotations

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rust_source import string_literals  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIST_MODULE = os.path.join("core", "events", "src", "hooks.rs")
EVENTS = os.path.join("core", "events", "schema", "hook-events.json")


def names(root: str) -> set[str]:
    with open(os.path.join(root, EVENTS)) as f:
        return {e["name"] for e in json.load(f)}


def findings(root: str) -> list[str]:
    hook_names = names(root)
    out = []
    core = os.path.join(root, "core")
    for dirpath, dirnames, filenames in os.walk(core):
        dirnames[:] = sorted(d for d in dirnames if d not in ("tests", "benches", "target"))
        for name in sorted(filenames):
            if not name.endswith(".rs"):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root)
            if rel == LIST_MODULE:
                continue
            with open(path, encoding="utf-8") as f:
                text = f.read()
            for offset, literal in string_literals(text):
                if literal in hook_names:
                    line = text.count("\n", 0, offset) + 1
                    out.append(f"{rel}:{line}: hook event name {literal!r} as a string "
                               f"literal (use its dcl_events::hook_input type or HookEventName)")
    return out


def main() -> int:
    root = sys.argv[1] if len(sys.argv) > 1 else ROOT
    found = findings(root)
    for f in found:
        print(f)
    if found:
        print(f"{len(found)} hook event name(s) spelled outside {LIST_MODULE}")
        return 1
    print(f"hook event names: string literals only in {LIST_MODULE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
