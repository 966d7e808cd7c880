#!/usr/bin/env python3
"""Fails when a crate reaches past its layer (docs/architecture.md "Where the shape goes next"):
front ends and bindings reach the engine only through the bridge; the leaf crates use no
other dcl crate (the sandbox may use the shell parser, which decides `excludedCommands`);
the model clients and the store know only the protocol; the tool API, the built-in tools
and the policy never import the engine (nor the policy a tool implementation). Reads `cargo metadata`; stdlib only.

Inside the engine, the turn and the control handlers never test the client dialect
(issue 19, "events, then wire"): they emit events and ask the session's `Dialect` by name,
and `core/engine/src/session/emit/` alone knows the line shapes. Comments, strings and
test items are not read. Self-test: tests/layering_test.py.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rust_source import strip_comments_and_strings, strip_test_items  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# crate -> the dcl crates it may depend on (normal and build dependencies)
ALLOWED: dict[str, set[str]] = {
    # The protocol takes the hook event list from the event contract.
    "dcl-protocol": {"dcl-events"},
    # The engine's event/command contract (and the one hook event list): a leaf front ends
    # import through the bridge.
    "dcl-events": set(),
    "dcl-shell": set(),
    "dcl-checkpoint": set(),
    # Only to turn on the protocol's `validate` feature in `--workspace` builds (one feature
    # set for the build and the tests, scripts/feature_sets.py); its code uses no dcl crate.
    "dcl-test-support": {"dcl-protocol"},
    "dcl-argv": set(),
    "dcl-sandbox": {"dcl-shell"},
    "dcl-model": {"dcl-protocol"},
    "dcl-store": {"dcl-protocol"},
    # The tool API knows the protocol and the session state tools share (the shell's
    # environment policy, the sandbox); the built-in tools sit on it; the policy decides
    # on what tools say about themselves and knows no tool implementation or session.
    "dcl-tool-api": {"dcl-protocol", "dcl-shell", "dcl-sandbox"},
    "dcl-tools": {"dcl-protocol", "dcl-tool-api", "dcl-shell", "dcl-sandbox"},
    "dcl-policy": {"dcl-events", "dcl-tool-api", "dcl-shell", "dcl-sandbox", "dcl-store"},
    # Skills, commands, plugins, agent definitions, memory files: read from folders when a
    # session is built (settings from the policy, plugin MCP servers' configs).
    "dcl-extensions": {"dcl-protocol", "dcl-policy", "dcl-mcp"},
    # MCP clients and servers; stdio servers start through the sandbox's containment.
    "dcl-mcp": {"dcl-shell", "dcl-sandbox"},
    # The session: everything below it, nothing above it (no bridge, no front end).
    "dcl-engine": {"dcl-events", "dcl-extensions", "dcl-protocol", "dcl-model", "dcl-tool-api", "dcl-tools", "dcl-policy",
                   "dcl-store", "dcl-shell", "dcl-sandbox", "dcl-checkpoint", "dcl-mcp"},
    # THE front-end API: the engine, its typed events (re-exported to the front ends), and
    # the argv vocabulary options are spelled in.
    "dcl-bridge": {"dcl-engine", "dcl-events", "dcl-protocol", "dcl-argv"},
    # Front ends and bindings: the bridge and the leaf vocabularies (wire types, argv,
    # store keys); the CLI also serves `dcl mcp` and execs the sandbox's child.
    "dcl-cli": {"dcl-bridge", "dcl-argv", "dcl-protocol", "dcl-store", "dcl-mcp", "dcl-sandbox",
                "dcl-acp", "dcl-tui"},
    # `dcl acp` and the interactive mode: front ends of their own, reached through the CLI.
    "dcl-acp": {"dcl-bridge", "dcl-argv"},
    "dcl-tui": {"dcl-bridge", "dcl-argv"},
    "dcl-python": {"dcl-bridge", "dcl-protocol", "dcl-store"},
    "dcl-node": {"dcl-bridge", "dcl-protocol", "dcl-store"},
    "dcl-java": {"dcl-bridge", "dcl-protocol", "dcl-store"},
    "dcl-c": {"dcl-bridge"},
    "dcl-uniffi": {"dcl-bridge"},
}
FRONT_ENDS = {"dcl-cli", "dcl-acp", "dcl-tui", "dcl-python", "dcl-node", "dcl-java", "dcl-c", "dcl-uniffi"}

# Folders whose code emits events and never tests the dialect.
DIALECT_FREE = ["core/engine/src/session/turn", "core/engine/src/session/control"]
# The old branches (`services.qoder()`, `legacy_events()`) and the options they read.
DIALECT_TEST = re.compile(
    r"\bqoder\s*\(\s*\)|\blegacy_events\b|\.\s*dialect\s*(?:==|!=)|\bopts\s*\.\s*dialect\b"
    r"|\bDialect\s*::\s*(?:Claude|Qoder)\b"
)


def dialect_tests(text: str) -> list[tuple[int, str]]:
    """(line, what) for each test of the dialect in the non-test code of `text`."""
    code = strip_test_items(strip_comments_and_strings(text))
    return [(code.count("\n", 0, m.start()) + 1, " ".join(m.group(0).split()))
            for m in DIALECT_TEST.finditer(code)]


def dialect_problems(folders: list[str]) -> list[str]:
    """One message per dialect test found in the .rs files under `folders`."""
    problems = []
    for folder in folders:
        for dirpath, _, files in sorted(os.walk(os.path.join(ROOT, folder))):
            for name in sorted(files):
                if not name.endswith(".rs"):
                    continue
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8") as f:
                    found = dialect_tests(f.read())
                rel = os.path.relpath(path, ROOT)
                problems.extend(
                    f"{rel}:{line}: `{what}` tests the dialect; emit an event or ask the "
                    "session's Dialect (core/engine/src/session/emit)"
                    for line, what in found)
    return problems


def crate_problems(packages: list[dict]) -> list[str]:
    """One message per crate that reaches past its layer or has no entry in ALLOWED
    (`packages`: `cargo metadata`'s packages)."""
    problems = []
    for pkg in packages:
        name = pkg["name"]
        deps = {d["name"] for d in pkg["dependencies"]
                if d["name"].startswith("dcl") and d["kind"] != "dev"}
        if name not in ALLOWED:
            problems.append(f"{name} has no entry in ALLOWED: say which dcl crates it may use")
        elif not deps <= ALLOWED[name]:
            problems.append(f"{name} depends on {sorted(deps - ALLOWED[name])}; it may use {sorted(ALLOWED[name]) or 'no dcl crate'}")
        if name in FRONT_ENDS and "dcl-engine" in deps:
            problems.append(f"{name} depends on dcl-engine; front ends go through dcl-bridge")
    return problems


def main() -> int:
    meta = json.loads(subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps"],
        check=True, capture_output=True, text=True).stdout)
    problems = crate_problems(meta["packages"])
    crates = len(problems)
    problems.extend(dialect_problems(DIALECT_FREE))
    for p in problems:
        print(f"layering: {p}")
    print(f"layering: {len(meta['packages'])} crates checked, {crates} problems; "
          f"{len(DIALECT_FREE)} dialect-free folders checked, {len(problems) - crates} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
