"""Run by tests/platforms/smoke.sh (step aarch64-python) with an aarch64 Python under
qemu-aarch64-static, the cross-built aarch64 wheel unpacked on PYTHONPATH: `import dcl` loads
the aarch64 extension, and one in-process query on the mock model writes a file through a
can_use_tool callback. (The wheel's bundled aarch64 `dcl` is run by smoke.sh itself: without
binfmt_misc a process under qemu cannot exec another aarch64 program.)

    python aarch64_query.py <work dir>
"""

from __future__ import annotations

import asyncio
import platform
import sys
from pathlib import Path


async def main(work: Path) -> int:
    import dcl
    import dcl._native as native

    print(f"python {platform.python_version()} on {platform.machine()}; extension {native.__file__}")
    asked: list[str] = []

    async def can_use_tool(name, tool_input, context):  # noqa: ANN001
        asked.append(name)
        return dcl.PermissionResultAllow(updated_input=tool_input)

    target = work / "aarch64.txt"
    opts = dcl.Options(model="mock-model", cwd=str(work), can_use_tool=can_use_tool,
                       permission_mode="default", env={"HOME": str(work)})
    kinds = []
    async for m in dcl.query(prompt=f"please FAKE_WRITE {target}", options=opts):
        kinds.append(type(m).__name__)
        if type(m).__name__ == "UserMessage":
            print(f"tool result: {getattr(m, 'content', m)!r}"[:600])
    print(f"messages: {kinds}; asked: {asked}; written: {target.is_file()}")
    ok = platform.machine() == "aarch64" and asked == ["Write"] and target.is_file() and "ResultMessage" in kinds
    print("aarch64 in-process query: " + ("ok" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main(Path(sys.argv[1]))))
