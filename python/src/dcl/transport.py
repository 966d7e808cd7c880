"""``DclTransport``: run existing claude-agent-sdk code in-process.

claude-agent-sdk's ``query()`` and ``ClaudeSDKClient`` accept a custom ``Transport``. This
one moves the protocol lines through an in-process dcl session instead of a ``claude``
subprocess; the SDK's own ``Query`` still does the control protocol (``can_use_tool``,
hooks, SDK MCP servers), so behaviour is the SDK's.

A custom transport gets none of the CLI flags the SDK would build from its options, so
``DclTransport`` takes the options itself and carries every one of them into the
session (model, cwd, permission mode, tools, system prompt, max turns, MCP servers...;
``can_use_tool`` makes dcl ask over the control channel)::

    from claude_agent_sdk import ClaudeAgentOptions, ClaudeSDKClient
    from dcl.transport import DclTransport

    options = ClaudeAgentOptions(model="mock-model", can_use_tool=approve)
    async with ClaudeSDKClient(options, transport=DclTransport(options)) as client:
        ...

Requires ``claude-agent-sdk`` (``pip install 'dcl[claude]'``).
"""

from __future__ import annotations

import json
from typing import Any, AsyncIterator, Dict, Optional

try:
    from claude_agent_sdk import CLIConnectionError as _SdkConnectionError
    from claude_agent_sdk import ProcessError as _SdkProcessError
    from claude_agent_sdk import Transport
except ImportError as e:  # pragma: no cover - depends on the environment
    raise ImportError(
        "dcl.transport needs claude-agent-sdk: pip install 'dcl[claude]'"
    ) from e

from . import _native
from ._errors import SessionClosedError
from ._host import new_key, pull
from .options import Options, session_options


class DclTransport(Transport):
    """A claude-agent-sdk ``Transport`` over an in-process dcl session.

    ``options`` is the ``ClaudeAgentOptions`` given to the SDK (or a :class:`dcl.Options`
    or mapping); fields without meaning in-process (``cli_path``, ``stderr``...) are
    ignored. In-process MCP servers are announced the way the SDK's CLI transport does
    (``{"type": "sdk", "name": ...}`` entries in the MCP config), and the SDK answers
    their ``mcp_message`` requests.
    """

    def __init__(self, options: Any = None) -> None:
        self.options = Options.from_any(options)
        self.session_options: Dict[str, Any] = session_options(self.options, sdk_servers_in_mcp_config=True)
        self._session: Optional[_native.Session] = None
        self._buffer = ""
        self._last_error_result = False
        self._key = new_key()

    @property
    def session_id(self) -> Optional[str]:
        """The dcl session's id once connected."""
        return self._session.session_id if self._session is not None else None

    async def connect(self) -> None:
        """Opens the in-process session (``InvalidOptionsError`` on bad options)."""
        if self._session is None:
            self._session = _native.open(json.dumps(self.session_options))

    async def write(self, data: str) -> None:
        """Hands complete lines to the session; a partial line waits for the rest."""
        if self._session is None:
            raise _SdkConnectionError("DclTransport is not connected")
        self._buffer += data
        *lines, self._buffer = self._buffer.split("\n")
        for line in lines:
            if not line.strip():
                continue
            try:
                self._session.send(line)
            except SessionClosedError as e:
                raise _SdkConnectionError(f"the dcl session has ended: {e}") from e

    async def read_messages(self) -> AsyncIterator[Dict[str, Any]]:
        """Every outbound message. Like the CLI, which exits 1 after an error result,
        the stream then ends with ``ProcessError`` (the SDK makes it a ``ResultError``)."""
        if self._session is None:
            raise _SdkConnectionError("DclTransport is not connected")
        session = self._session
        while True:
            # Woken through the event loop's one waker, a burst of lines at a time.
            lines = await pull(session, self._key, lambda: session.try_recv_batch(256))
            if not lines:
                break
            for line in lines:
                message = json.loads(line)
                kind = message.get("type")
                if kind == "result":
                    self._last_error_result = bool(message.get("is_error"))
                elif kind in ("assistant", "user", "stream_event"):
                    self._last_error_result = False
                yield message
        if self._last_error_result:
            raise _SdkProcessError("Command failed with exit code 1", exit_code=1)

    async def end_input(self) -> None:
        """Ends input: queued turns finish, then the message stream ends."""
        if self._session is not None:
            self._session.end_input()

    async def close(self) -> None:
        """Stops the session at once (bounded: nothing here waits)."""
        session, self._session = self._session, None
        if session is not None:
            session.close()

    def is_ready(self) -> bool:
        """True between ``connect()`` and ``close()``."""
        return self._session is not None


__all__ = ["DclTransport"]
