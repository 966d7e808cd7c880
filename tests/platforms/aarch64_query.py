"""Run by tests/platforms/smoke.sh (step aarch64-python) with an aarch64 Python under
qemu-aarch64-static, the cross-built aarch64 wheel unpacked on PYTHONPATH beside
tests/install: `import dcl` loads the aarch64 extension, and the install check's in-process
query (tests/install/python_checks.py: can_use_tool allows a Write, the file appears) runs on
it. (The wheel's bundled aarch64 `dcl` is run by smoke.sh itself: without binfmt_misc a
process under qemu cannot exec another aarch64 program.)

    python aarch64_query.py <work dir>
"""

from __future__ import annotations

import asyncio
import platform
import sys
from pathlib import Path

from python_checks import check_inprocess, fail


def main(work: Path) -> None:
    import dcl._native as native

    print(f"python {platform.python_version()} on {platform.machine()}; extension {native.__file__}")
    if platform.machine() != "aarch64":
        fail(f"this Python runs as {platform.machine()}, not aarch64")
    (work / "inprocess").mkdir(parents=True, exist_ok=True)
    (work / "home").mkdir(parents=True, exist_ok=True)
    asyncio.run(check_inprocess(work / "inprocess"))
    print("aarch64 in-process query: ok")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
