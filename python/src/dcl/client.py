"""``dcl.Client``: a conversation with follow-ups, interrupts and live settings, like
claude-agent-sdk's ``ClaudeSDKClient`` but in-process."""

from __future__ import annotations

import asyncio
import logging
from typing import Any, AsyncIterable, AsyncIterator, Dict, Optional, Set, Union

from ._errors import CLIConnectionError, ControlRequestError
from ._host import HostSession
from ._parse import parse_message
from .options import Options
from .types import Message, ResultMessage

logger = logging.getLogger("dcl")

Prompt = Union[str, AsyncIterable[Dict[str, Any]]]


class Client:
    """A multi-turn session. Use it as an async context manager::

        async with dcl.Client(dcl.Options(model="mock-model")) as client:
            await client.query("hello")
            async for message in client.receive_response():
                print(message)

    ``options`` may be a :class:`dcl.Options`, a mapping, or a ``ClaudeAgentOptions``.
    """

    def __init__(self, options: Any = None) -> None:
        self.options: Options = Options.from_any(options)
        self._host: Optional[HostSession] = None
        self._tasks: Set["asyncio.Task[Any]"] = set()

    @property
    def session_id(self) -> Optional[str]:
        """The session's id once connected."""
        return self._host.session_id if self._host is not None else None

    def _need(self) -> HostSession:
        if self._host is None:
            raise CLIConnectionError("Not connected. Call connect() first.")
        return self._host

    async def connect(self, prompt: Optional[Prompt] = None) -> None:
        """Opens the session and sends ``initialize``; then sends ``prompt`` if given."""
        if self._host is not None:
            raise CLIConnectionError("Already connected")
        host = HostSession(self.options)
        try:
            await host.start()
        except BaseException:
            await host.close()
            raise
        self._host = host
        if isinstance(prompt, str):
            await self.query(prompt)
        elif prompt is not None:
            task = asyncio.get_running_loop().create_task(self._stream(prompt))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _stream(self, prompt: AsyncIterable[Dict[str, Any]]) -> None:
        try:
            await self.query(prompt)
        except Exception:
            logger.exception("the prompt stream given to connect() failed")

    async def query(self, prompt: Prompt, session_id: str = "default") -> None:
        """Sends a prompt (a string, or an async iterable of user-message dicts)."""
        host = self._need()
        if isinstance(prompt, str):
            host.write(
                {
                    "type": "user",
                    "message": {"role": "user", "content": prompt},
                    "parent_tool_use_id": None,
                    "session_id": session_id,
                }
            )
            return
        async for message in prompt:
            message = dict(message)
            message.setdefault("session_id", session_id)
            host.write(message)

    async def receive_messages(self) -> AsyncIterator[Message]:
        """Every message of the session, turn after turn, until it ends."""
        host = self._need()
        while True:
            data = await host.next_message()
            if data is None:
                return
            message = parse_message(data)
            if message is not None:
                yield message

    async def receive_response(self) -> AsyncIterator[Message]:
        """The messages of one turn, up to and including its :class:`ResultMessage`."""
        # Not a loop over receive_messages(): leaving an inner async generator at the
        # result would leave it to the event loop's finalizer, which closes it in a task of
        # its own — one more task per turn, made while the turn's messages are alive.
        host = self._need()
        while True:
            data = await host.next_message()
            if data is None:
                return
            message = parse_message(data)
            if message is not None:
                yield message
                if isinstance(message, ResultMessage):
                    return

    async def interrupt(self) -> Dict[str, Any]:
        """Stops the running turn; it ends with an ``error_during_execution`` result."""
        return await self._need().request({"subtype": "interrupt"})

    async def set_permission_mode(self, mode: str) -> Dict[str, Any]:
        """Changes the permission mode for the rest of the session."""
        return await self._need().request({"subtype": "set_permission_mode", "mode": mode})

    async def set_model(self, model: Optional[str] = None) -> Dict[str, Any]:
        """Changes the model (``None``: the default); a running turn keeps its model."""
        return await self._need().request({"subtype": "set_model", "model": model})

    async def get_context_usage(self) -> Dict[str, Any]:
        """How the context window is used, by category."""
        return await self._need().request({"subtype": "get_context_usage"})

    async def mcp_status(self) -> Dict[str, Any]:
        """The MCP servers and their state (``{"mcpServers": [...]}``)."""
        return await self._need().request({"subtype": "mcp_status"})

    get_mcp_status = mcp_status

    async def rewind_files(self, user_message_id: str, dry_run: bool = False) -> Dict[str, Any]:
        """Restores the files the session changed since the user message ``user_message_id``
        (its ``uuid``) to how they were before it: edits undone, created files deleted,
        deleted files recreated. Needs ``enable_file_checkpointing=True`` and a Git work
        tree. Returns ``{"canRewind", "filesChanged", "insertions", "deletions"}``;
        ``dry_run=True`` reports the same and changes nothing. A refused rewind (a file was
        changed by someone else after dcl's last edit) raises :class:`ControlRequestError`
        unless ``dry_run``."""
        request: Dict[str, Any] = {"subtype": "rewind_files", "user_message_id": user_message_id}
        if dry_run:
            request["dry_run"] = True
        answer = await self._need().request(request)
        if not dry_run and isinstance(answer, dict) and answer.get("canRewind") is False:
            raise ControlRequestError("rewind_files", str(answer.get("error") or "cannot rewind"))
        return answer

    async def reconnect_mcp_server(self, server_name: str) -> None:
        """Reconnects an MCP server."""
        await self._need().request({"subtype": "mcp_reconnect", "serverName": server_name})

    async def toggle_mcp_server(self, server_name: str, enabled: bool) -> None:
        """Enables or disables an MCP server."""
        await self._need().request({"subtype": "mcp_toggle", "serverName": server_name, "enabled": enabled})

    async def stop_task(self, task_id: str) -> None:
        """Stops a background task."""
        await self._need().request({"subtype": "stop_task", "task_id": task_id})

    async def get_server_info(self) -> Optional[Dict[str, Any]]:
        """dcl's answer to ``initialize`` (models, commands, versions)."""
        return self._need().server_info

    def end_input(self) -> None:
        """No more prompts: queued turns finish, then ``receive_messages`` ends."""
        self._need().end_input()

    async def disconnect(self) -> None:
        """Stops the session (a running turn is cancelled) and releases it."""
        host, self._host = self._host, None
        for task in list(self._tasks):
            task.cancel()
        if host is not None:
            await host.close()

    async def __aenter__(self) -> "Client":
        await self.connect()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.disconnect()


__all__ = ["Client", "Prompt"]
