"""The ``dcl`` executable this wheel bundles, and the ``dcl`` console script.

A wheel built by ``scripts/dist.sh`` carries the static ``dcl`` binary at ``dcl/_bin/dcl``;
``pip install`` puts a ``dcl`` console script on ``PATH`` that runs it (``main`` below), so
``dcl -p ...`` works and claude-agent-sdk / qoder-agent-sdk can be pointed at it::

    from claude_agent_sdk import ClaudeAgentOptions
    from dcl.cli import cli_path

    options = ClaudeAgentOptions(cli_path=cli_path(), model="mock-model")

A wheel built from the sdist (or ``maturin develop``) has no bundled binary: ``cli_path``
then raises ``FileNotFoundError`` saying how to get one, and ``DCL_CLI_PATH`` names one.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

__all__ = ["cli_path", "main"]

_NAME = "dcl.exe" if os.name == "nt" else "dcl"


def cli_path() -> str:
    """Path of the ``dcl`` executable: ``$DCL_CLI_PATH`` if set, else the bundled one."""
    explicit = os.environ.get("DCL_CLI_PATH")
    if explicit:
        if not os.access(explicit, os.X_OK):
            raise FileNotFoundError(f"DCL_CLI_PATH={explicit!r} is not an executable file")
        return explicit
    bundled = Path(__file__).resolve().parent / "_bin" / _NAME
    if not bundled.is_file():
        raise FileNotFoundError(
            f"this dcl package has no bundled executable ({bundled} is missing: it was built "
            "from source, not from a prebuilt wheel); install a prebuilt wheel, or build one "
            "with `cargo install --path cli` and set DCL_CLI_PATH"
        )
    if not os.access(bundled, os.X_OK):  # an installer that dropped the mode bits
        bundled.chmod(bundled.stat().st_mode | 0o111)
    return str(bundled)


def main() -> int:
    """Console script ``dcl``: replaces this process with the bundled executable."""
    try:
        exe = cli_path()
    except FileNotFoundError as e:
        print(f"dcl: {e}", file=sys.stderr)
        return 127
    if os.name == "nt":  # no exec there: run it and pass its exit status on
        import subprocess

        return subprocess.call([exe, *sys.argv[1:]])
    os.execv(exe, [exe, *sys.argv[1:]])
    return 127  # not reached


if __name__ == "__main__":
    sys.exit(main())
