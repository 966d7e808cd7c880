#!/usr/bin/env python3
"""Writes package.json and README.md of one prebuilt npm package, @dcl/agent-<platform>, into
a staging directory that already holds its addon (dcl-node.<platform>.node) and bin/dcl[.exe].

    python3 scripts/npm_platform.py <napi platform> <version> <staging dir>

The platforms and their names are napi-rs's (linux-x64-gnu, darwin-arm64, win32-x64-gnu...);
`os`, `cpu` and `libc` let npm install only the package that matches the machine, as an
optional dependency of @dcl/agent (scripts/dist.sh lists every one).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

# platform -> (os, cpu, libc or None, what a person calls it)
PLATFORMS = {
    "linux-x64-gnu": ("linux", "x64", "glibc", "Linux x86-64 with glibc"),
    "linux-arm64-gnu": ("linux", "arm64", "glibc", "Linux arm64 with glibc"),
    "linux-x64-musl": ("linux", "x64", "musl", "Linux x86-64 with musl (Alpine)"),
    "linux-arm64-musl": ("linux", "arm64", "musl", "Linux arm64 with musl (Alpine)"),
    "darwin-x64": ("darwin", "x64", None, "macOS on Intel"),
    "darwin-arm64": ("darwin", "arm64", None, "macOS on Apple silicon"),
    "win32-x64-gnu": ("win32", "x64", None, "Windows x64"),
}


def manifest(platform: str, version: str) -> dict:
    os_name, cpu, libc, _ = PLATFORMS[platform]
    exe = "bin/dcl.exe" if os_name == "win32" else "bin/dcl"
    addon = f"dcl-node.{platform}.node"
    m: dict = {
        "name": f"@dcl/agent-{platform}",
        "version": version,
        "description": f"The prebuilt parts of @dcl/agent for {PLATFORMS[platform][3]}: "
        "the N-API addon and the dcl executable",
        "license": "Apache-2.0",
        "os": [os_name],
        "cpu": [cpu],
    }
    if libc:
        m["libc"] = [libc]
    m.update({"main": addon, "bin": {"dcl": exe}, "files": [addon, exe, "README.md"], "engines": {"node": ">=20"}})
    return m


def readme(platform: str) -> str:
    os_name, _, _, what = PLATFORMS[platform]
    exe = "bin/dcl.exe" if os_name == "win32" else "bin/dcl"
    return (
        f"# @dcl/agent-{platform}\n\n"
        f"The prebuilt, platform-specific part of `@dcl/agent` for {what}:\n\n"
        f"- `dcl-node.{platform}.node`: the N-API addon `@dcl/agent` loads;\n"
        f"- `{exe}`: the `dcl` executable (also linked as `node_modules/.bin/dcl`), for\n"
        "  `pathToClaudeCodeExecutable` and spawn adapters; `require(\"@dcl/agent\").dclPath()` returns it.\n\n"
        "Do not install it on its own: `@dcl/agent` lists it as an optional dependency, and npm picks\n"
        "the package that matches the machine. `scripts/dist.sh` in dcl's repository builds it.\n"
    )


def main() -> int:
    if len(sys.argv) != 4 or sys.argv[1] not in PLATFORMS:
        print(f"usage: npm_platform.py <{'|'.join(PLATFORMS)}> <version> <staging dir>", file=sys.stderr)
        return 2
    platform, version, stage = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    m = manifest(platform, version)
    for f in m["files"][:2]:
        if not (stage / f).is_file():
            print(f"npm_platform: {stage / f} is missing", file=sys.stderr)
            return 1
    (stage / "package.json").write_text(json.dumps(m, indent=2) + "\n")
    (stage / "README.md").write_text(readme(platform))
    return 0


if __name__ == "__main__":
    sys.exit(main())
