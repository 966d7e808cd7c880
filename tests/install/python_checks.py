"""The Python user's checks, run with the fresh venv's python after `pip install dcl-*.whl`:

1. `dcl` on PATH is the wheel's console script, and `dcl -v` is the package version;
2. dcl.query() (in-process, mock model) with a can_use_tool callback that allows a Write:
   the callback sees the Write and the file appears;
3. claude-agent-sdk's query() driving the wheel's `dcl` (cli_path) with the same callback.

    python python_checks.py <expected-version> <work-dir>

tests/platforms/aarch64_query.py imports `check_inprocess` for the aarch64 wheel under qemu.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from pathlib import Path


def fail(msg: str) -> None:
    sys.exit(f"python check FAILED: {msg}")


def check_console_script(version: str) -> str:
    exe = shutil.which("dcl")
    venv_bin = Path(sys.executable).parent
    if exe is None or Path(exe).parent != venv_bin:
        fail(f"`dcl` on PATH is {exe!r}, not the venv's console script in {venv_bin}")
    out = subprocess.run([exe, "-v"], capture_output=True, text=True, timeout=60)
    if out.returncode != 0 or f"(dcl {version})" not in out.stdout:
        fail(f"`dcl -v` gave {out.returncode}: {out.stdout!r} {out.stderr!r}")
    import dcl.cli

    bundled = dcl.cli.cli_path()
    if not bundled.startswith(str(Path(sys.prefix))):
        fail(f"dcl.cli.cli_path() is {bundled}, outside the venv")
    print(f"ok: console script {exe} -> {bundled}: {out.stdout.strip()}")
    return exe


async def check_inprocess(cwd: Path) -> None:
    import dcl

    asked: list[str] = []

    async def can_use_tool(name, tool_input, context):  # noqa: ANN001
        asked.append(name)
        return dcl.PermissionResultAllow(updated_input=tool_input)

    target = cwd / "inprocess.txt"
    opts = dcl.Options(model="mock-model", cwd=str(cwd), can_use_tool=can_use_tool,
                       permission_mode="default", env={"HOME": str(cwd.parent / "home")})
    results, tool_results = [], []
    async for m in dcl.query(prompt=f"please FAKE_WRITE {target}", options=opts):
        if type(m).__name__ == "ResultMessage":
            results.append(m)
        elif type(m).__name__ == "UserMessage":
            tool_results.append(getattr(m, "content", m))
    if asked != ["Write"]:
        fail(f"dcl.query: can_use_tool saw {asked}, not one Write")
    if not target.is_file():
        fail(f"dcl.query: the Write was allowed but the file is not there; the tool said {tool_results!r}"[:2000])
    if len(results) != 1 or results[0].is_error:
        fail(f"dcl.query: results {results!r}")
    print(f"ok: dcl.query in-process, can_use_tool allowed Write, {target.name} written")


async def check_claude_sdk(exe: str, cwd: Path) -> None:
    import claude_agent_sdk as sdk

    asked: list[str] = []

    async def can_use_tool(name, tool_input, context):  # noqa: ANN001
        asked.append(name)
        return sdk.PermissionResultAllow(updated_input=tool_input)

    target = cwd / "claude-sdk.txt"
    env = {"HOME": str(cwd.parent / "home")}
    opts = sdk.ClaudeAgentOptions(cli_path=exe, model="mock-model", cwd=str(cwd),
                                  can_use_tool=can_use_tool, permission_mode="default", env=env)

    async def prompt():
        yield {"type": "user", "message": {"role": "user", "content": f"please FAKE_WRITE {target}"},
               "parent_tool_use_id": None}

    results = []
    async for m in sdk.query(prompt=prompt(), options=opts):
        if isinstance(m, sdk.ResultMessage):
            results.append(m)
    if asked != ["Write"] or not target.is_file():
        fail(f"claude-agent-sdk: can_use_tool saw {asked}, file there: {target.is_file()}")
    if len(results) != 1 or results[0].is_error:
        fail(f"claude-agent-sdk: results {results!r}")
    print(f"ok: claude-agent-sdk {sdk.__version__} drove {exe}, Write allowed, file written")


def main() -> None:
    version, work = sys.argv[1], Path(sys.argv[2])
    for name in ("CARGO_TARGET_DIR", "DCL_BIN", "DCL_CLI_PATH"):
        if name in os.environ:
            fail(f"{name} is set in the user environment")
    exe = check_console_script(version)
    for sub in ("inprocess", "claude", "home"):
        (work / sub).mkdir(parents=True, exist_ok=True)
    asyncio.run(check_inprocess(work / "inprocess"))
    asyncio.run(check_claude_sdk(exe, work / "claude"))


if __name__ == "__main__":
    main()
