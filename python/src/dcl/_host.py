"""The host side of the control protocol, over one in-process session.

A reader task pulls every outbound line from ``dcl._native.Session.recv()``. Normal
messages go to a queue the user iterates; control requests from dcl (``can_use_tool``,
``hook_callback``, ``mcp_message``) are each handled in their own task, which runs the
user's function and answers with ``send(control_response)``; control responses resolve
the requests this side made (``initialize``, ``interrupt``, ``set_model``...). This is
what claude-agent-sdk's ``Query`` does over a subprocess's pipes.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import os
from typing import Any, AsyncIterator, Awaitable, Callable, Dict, List, Mapping, Optional, Set

from . import _native
from ._errors import CLIConnectionError, ControlRequestError, DclError
from .mcp import SdkMcpServer
from .options import Options, sdk_servers, session_options
from .types import HookCallback, PermissionUpdate, ToolPermissionContext

logger = logging.getLogger("dcl")

_END = object()

McpHandler = Callable[[Dict[str, Any]], Awaitable[Optional[Dict[str, Any]]]]


async def _maybe_await(value: Any) -> Any:
    if inspect.isawaitable(value):
        return await value
    return value


def permission_wire(result: Any, original_input: Dict[str, Any]) -> Dict[str, Any]:
    """A ``can_use_tool`` callback's answer in control-protocol form. Accepts dcl's and
    claude-agent-sdk's ``PermissionResultAllow`` / ``PermissionResultDeny`` (by their
    ``behavior``) and plain dicts."""
    if isinstance(result, Mapping):
        out = dict(result)
        if out.get("behavior") == "allow":
            out.setdefault("updatedInput", original_input)
            return out
        if out.get("behavior") == "deny":
            return out
        raise TypeError(f"permission answer needs behavior allow or deny: {result!r}")
    behavior = getattr(result, "behavior", None)
    if behavior == "allow":
        updated = getattr(result, "updated_input", None)
        wire: Dict[str, Any] = {
            "behavior": "allow",
            "updatedInput": updated if updated is not None else original_input,
        }
        perms = getattr(result, "updated_permissions", None)
        if perms is not None:
            wire["updatedPermissions"] = [p.to_dict() if hasattr(p, "to_dict") else dict(p) for p in perms]
        return wire
    if behavior == "deny":
        wire = {"behavior": "deny", "message": getattr(result, "message", "") or ""}
        if getattr(result, "interrupt", False):
            wire["interrupt"] = True
        return wire
    raise TypeError(
        "can_use_tool must return PermissionResultAllow or PermissionResultDeny, "
        f"got {type(result).__name__}"
    )


def hook_output_wire(output: Any) -> Dict[str, Any]:
    """A hook's output with ``async_`` / ``continue_`` renamed to the wire names."""
    if output is None:
        return {}
    if not isinstance(output, Mapping):
        raise TypeError(f"a hook must return a dict, got {type(output).__name__}")
    renames = {"async_": "async", "continue_": "continue"}
    return {renames.get(str(k), str(k)): v for k, v in output.items()}


class HostSession:
    """One in-process session and its control-protocol dispatcher."""

    def __init__(self, options: Options, *, sdk_servers_in_mcp_config: bool = False) -> None:
        self.options = options
        self._sdk_in_config = sdk_servers_in_mcp_config
        self._native: Optional[_native.Session] = None
        self._queue: "asyncio.Queue[Any]" = asyncio.Queue()
        self._reader: Optional["asyncio.Task[None]"] = None
        self._pending: Dict[str, "asyncio.Future[Dict[str, Any]]"] = {}
        self._handlers: Dict[str, "asyncio.Task[None]"] = {}
        self._tasks: Set["asyncio.Task[Any]"] = set()
        self._hooks: Dict[str, HookCallback] = {}
        self._mcp: Dict[str, McpHandler] = {}
        self._bridges: List[Any] = []
        self._counter = 0
        self._result_event = asyncio.Event()
        self._failure: Optional[BaseException] = None
        self.server_info: Optional[Dict[str, Any]] = None
        self.results = 0
        self.last_error_result: Optional[Dict[str, Any]] = None
        self.ended = False

    # ------------------------------------------------------------------ lifecycle

    @property
    def session_id(self) -> Optional[str]:
        """The session's id, once open."""
        return self._native.session_id if self._native is not None else None

    @property
    def bidirectional(self) -> bool:
        """Whether dcl may need answers from this side (callbacks, hooks, SDK tools)."""
        return bool(self.options.can_use_tool or self.options.hooks or sdk_servers(self.options))

    async def start(self) -> Dict[str, Any]:
        """Opens the session, starts the reader and sends ``initialize``."""
        payload = json.dumps(session_options(self.options, sdk_servers_in_mcp_config=self._sdk_in_config))
        self._setup_mcp()
        self._native = _native.open(payload)
        self._reader = asyncio.get_running_loop().create_task(self._read_loop())
        timeout = max(self.options.control_request_timeout_ms / 1000.0, 60.0)
        self.server_info = await self.request(self._initialize_request(), timeout=timeout)
        return self.server_info

    def _setup_mcp(self) -> None:
        for name, instance in sdk_servers(self.options).items():
            if isinstance(instance, SdkMcpServer):
                self._mcp[name] = instance.handle
                continue
            try:  # a claude-agent-sdk server (an mcp.server.Server)
                from claude_agent_sdk._internal.sdk_mcp_bridge import SdkMcpBridge
            except ImportError as e:
                raise TypeError(
                    f"mcp_servers[{name!r}] is not a dcl server; use dcl.create_sdk_mcp_server"
                ) from e
            bridge = SdkMcpBridge(name, instance)
            self._bridges.append(bridge)
            self._mcp[name] = bridge.handle

    def _initialize_request(self) -> Dict[str, Any]:
        hooks: Dict[str, Any] = {}
        for event, matchers in (self.options.hooks or {}).items():
            entries = []
            for m in matchers or []:
                ids = []
                for cb in getattr(m, "hooks", None) or []:
                    cid = f"hook_{len(self._hooks)}"
                    self._hooks[cid] = cb
                    ids.append(cid)
                entry: Dict[str, Any] = {"matcher": getattr(m, "matcher", None), "hookCallbackIds": ids}
                if getattr(m, "timeout", None) is not None:
                    entry["timeout"] = m.timeout
                if getattr(m, "on_failure", None) is not None:
                    entry["onFailure"] = m.on_failure
                entries.append(entry)
            if entries:
                hooks[event] = entries
        request: Dict[str, Any] = {"subtype": "initialize", "hooks": hooks or None}
        if self._mcp and not self._sdk_in_config:
            request["sdkMcpServers"] = list(self._mcp)
        if self.options.agents:
            request["agents"] = {
                name: {k: v for k, v in (a if isinstance(a, Mapping) else vars(a)).items() if v is not None}
                for name, a in self.options.agents.items()
            }
        if self.options.agent is not None:
            request["agent"] = self.options.agent
        if self.options.forward_subagent_text:
            request["forwardSubagentText"] = True
        if isinstance(self.options.skills, list):
            request["skills"] = list(self.options.skills)
        return request

    def end_input(self) -> None:
        """No more prompts: queued turns finish, then the message stream ends."""
        if self._native is not None:
            self._native.end_input()

    async def close(self) -> None:
        """Stops the session and waits (briefly) for the reader to drain."""
        if self._native is not None:
            self._native.close()
        for task in list(self._tasks):
            task.cancel()
        for bridge in self._bridges:
            try:
                await bridge.aclose()
            except Exception:  # pragma: no cover - best effort
                logger.debug("closing an SDK MCP bridge failed", exc_info=True)
        if self._reader is not None and not self._reader.done():
            try:
                await asyncio.wait_for(asyncio.shield(self._reader), 5.0)
            except (asyncio.TimeoutError, asyncio.CancelledError):
                self._reader.cancel()
        self.ended = True

    # ------------------------------------------------------------------ output

    async def _read_loop(self) -> None:
        assert self._native is not None
        try:
            while True:
                # One wake-up per burst of lines: crossing from the Rust runtime into the
                # event loop costs more than parsing a line.
                lines = await self._native.recv_batch()
                if not lines:
                    break
                for line in lines:
                    try:
                        msg = json.loads(line)
                    except ValueError:
                        logger.warning("dcl sent a line that is not JSON: %.200s", line)
                        continue
                    if isinstance(msg, dict):
                        self._route(msg)
        except asyncio.CancelledError:
            raise
        except BaseException as e:  # surfaced to whoever iterates the messages
            self._failure = e
        finally:
            self.ended = True
            for fut in self._pending.values():
                if not fut.done():
                    fut.set_exception(CLIConnectionError("the session ended before answering"))
            self._queue.put_nowait(_END)
            self._result_event.set()

    def _route(self, msg: Dict[str, Any]) -> None:
        kind = msg.get("type")
        if kind == "control_response":
            response = msg.get("response") or {}
            fut = self._pending.get(str(response.get("request_id")))
            if fut is not None and not fut.done():
                fut.set_result(response)
            return
        if kind == "control_request":
            rid = str(msg.get("request_id"))
            task = asyncio.get_running_loop().create_task(self._handle(rid, msg.get("request") or {}))
            self._handlers[rid] = task
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
            task.add_done_callback(self._forget_handler(rid))
            return
        if kind == "control_cancel_request":
            cancelled = self._handlers.pop(str(msg.get("request_id")), None)
            if cancelled is not None:
                cancelled.cancel()
            return
        if kind == "system" and msg.get("subtype") == "session_state_changed" and msg.get("sdk_host_only"):
            return
        if kind == "result":
            self.results += 1
            self.last_error_result = msg if msg.get("is_error") else None
            event, self._result_event = self._result_event, asyncio.Event()
            event.set()
        else:
            self.last_error_result = None
        self._queue.put_nowait(msg)

    def _forget_handler(self, request_id: str) -> Callable[["asyncio.Task[None]"], None]:
        def forget(_task: "asyncio.Task[None]") -> None:
            self._handlers.pop(request_id, None)

        return forget

    async def messages(self) -> AsyncIterator[Dict[str, Any]]:
        """Every normal outbound message, in order, until the session ends."""
        while True:
            item = await self._queue.get()
            if item is _END:
                self._queue.put_nowait(_END)  # later iterations end at once too
                if self._failure is not None:
                    raise CLIConnectionError(f"reading from the session failed: {self._failure}") from self._failure
                return
            yield item

    async def wait_for_results(self, count: int) -> None:
        """Waits until ``count`` results have been read or the session ended."""
        while self.results < count and not self.ended:
            await self._result_event.wait()

    # ------------------------------------------------------------------ input

    def write(self, message: Mapping[str, Any]) -> None:
        """Sends one protocol message (a dict)."""
        self.write_line(json.dumps(message))

    def write_line(self, line: str) -> None:
        """Sends one protocol line."""
        if self._native is None:
            raise CLIConnectionError("Not connected. Call connect() first.")
        self._native.send(line)

    async def request(self, request: Dict[str, Any], timeout: Optional[float] = 60.0) -> Dict[str, Any]:
        """Sends a control request to dcl and returns the ``response`` payload."""
        subtype = str(request.get("subtype"))
        self._counter += 1
        rid = f"req_{self._counter}_{os.urandom(4).hex()}"
        fut: "asyncio.Future[Dict[str, Any]]" = asyncio.get_running_loop().create_future()
        self._pending[rid] = fut
        try:
            self.write({"type": "control_request", "request_id": rid, "request": request})
            try:
                answer = await asyncio.wait_for(fut, timeout)
            except asyncio.TimeoutError:
                raise ControlRequestError(subtype, f"Control request timeout: {subtype}") from None
        finally:
            self._pending.pop(rid, None)
        if answer.get("subtype") == "error":
            raise ControlRequestError(subtype, str(answer.get("error", "Unknown error")))
        payload = answer.get("response")
        return payload if isinstance(payload, dict) else {}

    # ------------------------------------------------------------------ requests from dcl

    async def _handle(self, request_id: str, request: Dict[str, Any]) -> None:
        subtype = request.get("subtype")
        try:
            if subtype == "can_use_tool":
                data = await self._can_use_tool(request)
            elif subtype == "hook_callback":
                data = await self._hook_callback(request)
            elif subtype == "mcp_message":
                data = await self._mcp_message(request)
            else:
                raise Exception(f"Unsupported control request subtype: {subtype}")
            line = json.dumps(
                {
                    "type": "control_response",
                    "response": {"subtype": "success", "request_id": request_id, "response": data},
                }
            )
        except asyncio.CancelledError:
            raise  # dcl withdrew the request: no answer
        except Exception as e:
            line = json.dumps(
                {
                    "type": "control_response",
                    "response": {"subtype": "error", "request_id": request_id, "error": str(e) or type(e).__name__},
                }
            )
        try:
            self.write_line(line)
        except DclError:
            logger.debug("answer to %s %s not delivered: the session ended", subtype, request_id)

    async def _can_use_tool(self, request: Dict[str, Any]) -> Dict[str, Any]:
        callback = self.options.can_use_tool
        if callback is None:
            raise Exception("canUseTool callback is not provided")
        original = request.get("input") or {}
        context = ToolPermissionContext(
            signal=None,
            suggestions=[
                PermissionUpdate.from_dict(s) for s in request.get("permission_suggestions") or [] if isinstance(s, dict)
            ],
            tool_use_id=request.get("tool_use_id"),
            agent_id=request.get("agent_id"),
            blocked_path=request.get("blocked_path"),
            decision_reason=request.get("decision_reason"),
            title=request.get("title"),
            display_name=request.get("display_name"),
            description=request.get("description"),
        )
        result = await _maybe_await(callback(str(request.get("tool_name", "")), original, context))
        return permission_wire(result, original)

    async def _hook_callback(self, request: Dict[str, Any]) -> Dict[str, Any]:
        callback_id = request.get("callback_id")
        callback = self._hooks.get(str(callback_id))
        if callback is None:
            raise Exception(f"No hook callback found for ID: {callback_id}")
        output = await _maybe_await(callback(request.get("input") or {}, request.get("tool_use_id"), {"signal": None}))
        return hook_output_wire(output)

    async def _mcp_message(self, request: Dict[str, Any]) -> Dict[str, Any]:
        name = request.get("server_name")
        message = request.get("message")
        if not name or not isinstance(message, dict):
            raise Exception("Missing server_name or message for MCP request")
        handler = self._mcp.get(str(name))
        if handler is None:
            response: Optional[Dict[str, Any]] = {
                "jsonrpc": "2.0",
                "id": message.get("id"),
                "error": {"code": -32601, "message": f"Server '{name}' not found"},
            }
        else:
            try:
                response = await handler(message)
            except Exception as e:
                response = {
                    "jsonrpc": "2.0",
                    "id": message.get("id"),
                    "error": {"code": -32603, "message": str(e) or type(e).__name__},
                }
        if response is None:  # a notification: acknowledged all the same
            response = {"jsonrpc": "2.0", "result": {}}
        return {"mcp_response": response}


__all__ = ["HostSession", "hook_output_wire", "permission_wire"]
