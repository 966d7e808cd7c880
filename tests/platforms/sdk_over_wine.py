"""claude-agent-sdk driving a cross-built dcl through a wrapper script (dcl.exe under wine,
the aarch64 dcl under qemu): a stream-json session from Linux, one query on the mock model,
one Write tool call allowed, the result message checked.

    python tests/platforms/sdk_over_wine.py <wrapper> <workdir>
"""

import asyncio
import sys
from pathlib import Path

from claude_agent_sdk import ClaudeAgentOptions, ResultMessage, query


async def main(wrapper: str, work: str) -> int:
    options = ClaudeAgentOptions(
        cli_path=wrapper,
        model="mock-model",
        cwd=work,
        allowed_tools=["Write"],
        setting_sources=[],
    )
    result = None
    async for message in query(prompt="FAKE_WRITE sdk.txt", options=options):
        if isinstance(message, ResultMessage):
            result = message
    made = Path(work, "sdk.txt")
    ok = result is not None and not result.is_error and made.is_file()
    print(f"result: {result and result.subtype}, sdk.txt written: {made.is_file()}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1], sys.argv[2])))
