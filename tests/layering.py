#!/usr/bin/env python3
"""Fails when a crate reaches past its layer (DESIGN.md "Where the shape goes next"):
front ends and bindings reach the engine only through the bridge; the leaf crates use no
other dcl crate (the sandbox may use the shell parser, which decides `excludedCommands`);
the model clients and the store know only the protocol; the tool API, the built-in tools
and the policy never import the engine (nor the policy a tool implementation). Reads `cargo metadata`; stdlib only.
"""
from __future__ import annotations

import json
import subprocess
import sys

# crate -> the dcl crates it may depend on (normal and build dependencies)
ALLOWED: dict[str, set[str]] = {
    "dcl-protocol": set(),
    "dcl-shell": set(),
    "dcl-checkpoint": set(),
    "dcl-test-support": set(),
    "dcl-argv": set(),
    "dcl-sandbox": {"dcl-shell"},
    "dcl-model": {"dcl-protocol"},
    "dcl-store": {"dcl-protocol"},
    # The tool API knows the protocol and the session state tools share (the shell's
    # environment policy, the sandbox); the built-in tools sit on it; the policy decides
    # on what tools say about themselves and knows no tool implementation or session.
    "dcl-tool-api": {"dcl-protocol", "dcl-shell", "dcl-sandbox"},
    "dcl-tools": {"dcl-protocol", "dcl-tool-api", "dcl-shell", "dcl-sandbox"},
    "dcl-policy": {"dcl-tool-api", "dcl-shell", "dcl-sandbox", "dcl-store"},
}
FRONT_ENDS = {"dcl-cli", "dcl-python", "dcl-node", "dcl-java", "dcl-c", "dcl-uniffi"}


def main() -> int:
    meta = json.loads(subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps"],
        check=True, capture_output=True, text=True).stdout)
    problems = []
    for pkg in meta["packages"]:
        name = pkg["name"]
        deps = {d["name"] for d in pkg["dependencies"]
                if d["name"].startswith("dcl") and d["kind"] != "dev"}
        if name in ALLOWED and not deps <= ALLOWED[name]:
            problems.append(f"{name} depends on {sorted(deps - ALLOWED[name])}; it may use {sorted(ALLOWED[name]) or 'no dcl crate'}")
        if name in FRONT_ENDS and "dcl-engine" in deps:
            problems.append(f"{name} depends on dcl-engine; front ends go through dcl-bridge")
    for p in problems:
        print(f"layering: {p}")
    print(f"layering: {len(meta['packages'])} crates checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
