"""The Python end of dcl's Rust host (``dcl._native.Host``) for one in-process session.

The control protocol itself — request ids both ways, timeouts, ``initialize``, the
JSON-RPC of in-process MCP servers — is done in Rust (``dcl_bridge::host``). What is left
here is what only Python can do: call the user's functions. Events ``(id, kind,
payload)`` are pulled when the loop's waker names the session: messages go to a queue the
user iterates; ``can_use_tool``,
``hook_callback``, ``tool_call`` and ``mcp_message`` (a foreign MCP server) each run in
their own task and answer with ``respond``; ``cancel`` stops such a task. A call this side
makes (``interrupt``, ``set_model``...) is a ``_native.PendingCall`` the caller awaits on
the loop's waker: no table of request ids lives here.

Waiting costs no descriptor per session: every session of an event loop is woken
through one ``dcl._native.Waker`` the loop watches (``loop.add_reader``).
"""

from __future__ import annotations

import asyncio
import collections
import inspect
import itertools
import json
import logging
import os
import weakref
from typing import Any, AsyncIterator, Awaitable, Callable, Dict, List, Mapping, Optional, Set, Tuple

from . import _native
from ._errors import CLIConnectionError, ControlRequestError, DclError
from .mcp import SdkMcpServer
from .options import Options, sdk_servers, session_options
from .types import HookCallback, PermissionUpdate, ToolPermissionContext

logger = logging.getLogger("dcl")

_END = object()

McpHandler = Callable[[Dict[str, Any]], Awaitable[Optional[Dict[str, Any]]]]

Event = Tuple[str, str, str]


class _LoopWaker:
    """The one wake-up of an event loop: a ``_native.Waker`` whose descriptor the loop
    watches, the future each waiting call parks under its key, and the sessions whose
    events are routed right here (``readers``, registered once when a session opens)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.native = _native.Waker()
        self.waiting: Dict[int, "asyncio.Future[None]"] = {}
        self.readers: Dict[int, Callable[[], None]] = {}
        loop.add_reader(self.native.fd, self._ready)

    def _ready(self) -> None:
        for key in self.native.take_ready():
            reader = self.readers.get(key)
            if reader is not None:
                reader()
                continue
            fut = self.waiting.pop(key, None)
            if fut is not None and not fut.done():
                fut.set_result(None)


_wakers: "weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopWaker]" = weakref.WeakKeyDictionary()
_keys = itertools.count(1)


def _loop_waker(loop: asyncio.AbstractEventLoop) -> _LoopWaker:
    waker = _wakers.get(loop)
    if waker is None:
        waker = _wakers[loop] = _LoopWaker(loop)
    return waker


def new_key() -> int:
    """A key for one session's waits on its loop's waker."""
    return next(_keys)


async def pull(native: Any, key: int, take: Callable[[], Optional[List[Any]]]) -> List[Any]:
    """What ``take()`` gives once it gives something (``None``: nothing yet), waiting on the
    loop's waker in between (``native.arm``). Items are only ever taken here, on the loop's
    thread, so a cancelled wait loses none."""
    while True:
        got = take()
        if got is not None:
            return list(got)
        loop = asyncio.get_running_loop()
        waker = _loop_waker(loop)
        fut: "asyncio.Future[None]" = loop.create_future()
        waker.waiting[key] = fut
        native.arm(waker.native, key)
        try:
            await fut
        finally:
            if waker.waiting.get(key) is fut:
                del waker.waiting[key]


async def next_events(native: Any, key: int, max_events: int = 256) -> List[Event]:
    """The next events of a ``_native.Host`` (``[]`` once it has ended)."""
    return await pull(native, key, lambda: native.try_events(max_events))


async def _maybe_await(value: Any) -> Any:
    if inspect.isawaitable(value):
        return await value
    return value


class _Waiters:
    """Futures waiting for the next `wake()`. asyncio's Queue and Event cost ~3 KB a
    session in deques made up front; an idle session here holds two empty slots."""

    __slots__ = ("_futures",)

    def __init__(self) -> None:
        self._futures: Optional[List["asyncio.Future[None]"]] = None

    async def wait(self) -> None:
        fut: "asyncio.Future[None]" = asyncio.get_running_loop().create_future()
        if self._futures is None:
            self._futures = []
        self._futures.append(fut)
        try:
            await fut
        finally:
            if self._futures is not None and fut in self._futures:
                self._futures.remove(fut)

    def wake(self) -> None:
        futures, self._futures = self._futures, None
        for fut in futures or ():
            if not fut.done():
                fut.set_result(None)


class _Mailbox:
    """An unbounded FIFO for the session's messages, read by any number of tasks."""

    __slots__ = ("_items", "_waiters")

    def __init__(self) -> None:
        self._items: "Optional[collections.deque[Any]]" = None
        self._waiters = _Waiters()

    def put_nowait(self, item: Any) -> None:
        if self._items is None:
            self._items = collections.deque()
        self._items.append(item)
        self._waiters.wake()

    async def get(self) -> Any:
        while not self._items:
            await self._waiters.wait()
        item = self._items.popleft()
        if not self._items:
            # A drained mailbox gives back its deque (a 64-slot block): an idle session
            # between turns holds none.
            self._items = None
        return item


_last_server_info: Optional[str] = None


def _shared_text(text: str) -> str:
    """``text``, or the equal string the previous session kept: sessions opened with the
    same options get the same ``initialize`` answer (~2 KB), kept once instead of once
    each."""
    global _last_server_info
    if text == _last_server_info:
        return _last_server_info
    _last_server_info = text
    return text


def _parse_line(line: str) -> Optional[Dict[str, Any]]:
    """A message line as a dict; ``None`` (after a warning) for a line that is not a
    JSON object."""
    try:
        msg = json.loads(line)
    except ValueError:
        logger.warning("dcl sent a line that is not JSON: %.200s", line)
        return None
    if not isinstance(msg, dict):
        logger.warning("dcl sent a line that is not a JSON object: %.200s", line)
        return None
    return msg


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
    """One in-process session: the Rust host, and the tasks running the user's functions."""

    def __init__(self, options: Options, *, sdk_servers_in_mcp_config: bool = False) -> None:
        self.options = options
        self._sdk_in_config = sdk_servers_in_mcp_config
        self._native: Optional[Any] = None
        self._key = new_key()
        self._queue = _Mailbox()
        self._waker: Optional[_LoopWaker] = None
        self._handlers: Dict[str, "asyncio.Task[None]"] = {}
        self._tasks: Set["asyncio.Task[Any]"] = set()
        self._hooks: List[HookCallback] = []
        self._servers: Dict[str, SdkMcpServer] = {}
        self._raw: Dict[str, McpHandler] = {}
        self._bridges: List[Any] = []
        self._result_seen = _Waiters()
        self._failure: Optional[BaseException] = None
        # Kept as text, parsed on demand: the parsed answer is ~9 KB of objects a server
        # holding 10,000 idle sessions would carry for a call few of them make.
        self._server_info: Optional[str] = None
        self.results = 0
        self.last_error_result: Optional[Dict[str, Any]] = None
        self.ended = False

    # ------------------------------------------------------------------ lifecycle

    @property
    def server_info(self) -> Optional[Dict[str, Any]]:
        """dcl's answer to ``initialize`` (a fresh dict each time)."""
        if self._server_info is None:
            return None
        answer = json.loads(self._server_info)
        return answer if isinstance(answer, dict) else {}

    @property
    def session_id(self) -> Optional[str]:
        """The session's id, once open."""
        return self._native.session_id if self._native is not None else None

    @property
    def bidirectional(self) -> bool:
        """Whether dcl may need answers from this side (callbacks, hooks, SDK tools)."""
        return bool(self.options.can_use_tool or self.options.hooks or sdk_servers(self.options))

    async def start(self) -> None:
        """Opens the session, registers the in-process MCP servers, starts the reader and
        sends ``initialize``."""
        payload = json.dumps(session_options(self.options, sdk_servers_in_mcp_config=self._sdk_in_config))
        specs = self._setup_mcp()
        timeout = max(self.options.control_request_timeout_ms / 1000.0, 60.0)
        cli_path = self.options.cli_path or os.environ.get("DCL_CLI_PATH") or None
        self._native = _native.Host(payload, None, timeout, os.fspath(cli_path) if cli_path else None)
        for spec in specs:
            self._native.add_mcp_server(json.dumps(spec))
        self._waker = _loop_waker(asyncio.get_running_loop())
        self._waker.readers[self._key] = self._drain
        self._native.arm(self._waker.native, self._key)
        self._server_info = _shared_text(
            await self._call_raw(self._native.initialize, self._init_spec(), "initialize", timeout)
        )

    def _setup_mcp(self) -> List[Dict[str, Any]]:
        specs: List[Dict[str, Any]] = []
        for name, instance in sdk_servers(self.options).items():
            if isinstance(instance, SdkMcpServer):
                self._servers[name] = instance
                spec = instance.spec()
                spec["name"] = name
                specs.append(spec)
                continue
            try:  # a claude-agent-sdk server (an mcp.server.Server): it speaks JSON-RPC itself
                from claude_agent_sdk._internal.sdk_mcp_bridge import SdkMcpBridge
            except ImportError as e:
                raise TypeError(
                    f"mcp_servers[{name!r}] is not a dcl server; use dcl.create_sdk_mcp_server"
                ) from e
            bridge = SdkMcpBridge(name, instance)
            self._bridges.append(bridge)
            self._raw[name] = bridge.handle
            specs.append({"name": name, "raw": True})
        return specs

    def _init_spec(self) -> Dict[str, Any]:
        """What the Rust host builds ``initialize`` from: hooks as callback counts (the
        host numbers them ``hook_<n>`` in this order, the order of ``self._hooks``)."""
        hooks: List[Dict[str, Any]] = []
        for event, matchers in (self.options.hooks or {}).items():
            for m in matchers or []:
                callbacks = list(getattr(m, "hooks", None) or [])
                self._hooks.extend(callbacks)
                hooks.append(
                    {
                        "event": event,
                        "matcher": getattr(m, "matcher", None),
                        "callbacks": len(callbacks),
                        "timeout": getattr(m, "timeout", None),
                        "onFailure": getattr(m, "on_failure", None),
                    }
                )
        spec: Dict[str, Any] = {"hooks": hooks, "sdkServersInMcpConfig": self._sdk_in_config}
        if self.options.agents:
            spec["agents"] = {
                name: {k: v for k, v in (a if isinstance(a, Mapping) else vars(a)).items() if v is not None}
                for name, a in self.options.agents.items()
            }
        if self.options.agent is not None:
            spec["agent"] = self.options.agent
        if self.options.forward_subagent_text:
            spec["forwardSubagentText"] = True
        if isinstance(self.options.skills, list):
            spec["skills"] = list(self.options.skills)
        return spec

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
        try:
            if self._waker is not None and not self.ended:
                await asyncio.wait_for(self._wait_ended(), 5.0)
        except asyncio.TimeoutError:
            logger.debug("session %s did not end within 5 s of close", self.session_id)
        finally:
            self._finish()

    # ------------------------------------------------------------------ output

    def _drain(self) -> None:
        """Routes the session's next batch of events, called by the loop's waker when it
        names this session; then arms it again (at once when more are waiting, so one
        busy session does not hold the loop).

        No reader task waits per session: a task's wait (its future, the coroutines of
        the wait) is made anew each time the session wakes, that is during a burst of
        turns, among the burst's short-lived objects, and an idle session kept it — one
        small object in each pymalloc pool is enough to keep the pool's arena after the
        burst. An idle session now holds nothing made during its turns."""
        native, waker = self._native, self._waker
        if native is None or waker is None or self.ended:
            return
        try:
            events = native.try_events(256)
            if events is None:
                native.arm(waker.native, self._key)
                return
            for event in events:
                self._route(*event)
            if events:
                native.arm(waker.native, self._key)
                return
        except Exception as e:  # surfaced to whoever iterates the messages
            self._failure = e
        self._finish()

    def _finish(self) -> None:
        """The session's output is over: iterations end, waiters wake."""
        if self._waker is not None:
            self._waker.readers.pop(self._key, None)
            self._waker = None
        if not self.ended:
            self.ended = True
            self._queue.put_nowait(_END)
            self._result_seen.wake()

    async def _wait_ended(self) -> None:
        while not self.ended:
            await self._result_seen.wait()

    def _route(self, rid: str, kind: str, payload: str) -> None:
        if kind == "message":
            self._message(payload)
            return
        if kind == "cancel":
            cancelled = self._handlers.pop(rid, None)
            if cancelled is not None:
                cancelled.cancel()
            return
        task = asyncio.get_running_loop().create_task(self._handle(rid, kind, json.loads(payload)))
        self._handlers[rid] = task
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(self._forget_handler(rid))

    def _message(self, line: str) -> None:
        """Queues a message line as text, parsed when it is read. A server with thousands
        of sessions mid-turn would otherwise hold every queued message as dicts, which
        the cyclic GC walks in each collection, and the more of them survive, the more
        often it walks everything (BENCHMARKS.md, "Python: the GC and the queued
        messages"). Only a line that may be the result is parsed here: every result line
        holds the token ``"result"``, so none is missed; another line holding it is
        merely parsed early."""
        if '"result"' not in line:
            self.last_error_result = None
            self._queue.put_nowait(line)
            return
        msg = _parse_line(line)
        if msg is None:
            return
        if msg.get("type") == "result":
            self.results += 1
            self.last_error_result = msg if msg.get("is_error") else None
            self._result_seen.wake()
        else:
            self.last_error_result = None
        self._queue.put_nowait(msg)

    def _forget_handler(self, request_id: str) -> Callable[["asyncio.Task[None]"], None]:
        def forget(_task: "asyncio.Task[None]") -> None:
            self._handlers.pop(request_id, None)

        return forget

    async def next_message(self) -> Optional[Dict[str, Any]]:
        """The next normal outbound message; ``None`` once the session has ended."""
        while True:
            item = await self._queue.get()
            if item is _END:
                self._queue.put_nowait(_END)  # later calls end at once too
                if self._failure is not None:
                    raise CLIConnectionError(f"reading from the session failed: {self._failure}") from self._failure
                return None
            if isinstance(item, str):
                item = _parse_line(item)
                if item is None:
                    continue
            return item

    async def messages(self) -> AsyncIterator[Dict[str, Any]]:
        """Every normal outbound message, in order, until the session ends."""
        while True:
            item = await self.next_message()
            if item is None:
                return
            yield item

    async def wait_for_results(self, count: int) -> None:
        """Waits until ``count`` results have been read or the session ended."""
        while self.results < count and not self.ended:
            await self._result_seen.wait()

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
        """Sends a control request to dcl and returns the ``response`` payload. The Rust
        host gives it its id and times it out."""
        if self._native is None:
            raise CLIConnectionError("Not connected. Call connect() first.")
        return await self._call(self._native.call, request, str(request.get("subtype")), timeout)

    async def _call(self, send: Callable[..., Any], request: Dict[str, Any], subtype: str, timeout: Optional[float]) -> Dict[str, Any]:
        answer = json.loads(await self._call_raw(send, request, subtype, timeout))
        return answer if isinstance(answer, dict) else {}

    async def _call_raw(self, send: Callable[..., Any], request: Dict[str, Any], subtype: str, timeout: Optional[float]) -> str:
        """A control call's answer as the JSON text dcl sent."""
        if self.ended:
            raise CLIConnectionError("the session ended before answering")
        call = send(json.dumps(request), timeout)
        how, payload = await pull(call, new_key(), call.take)
        if how == "ok":
            return str(payload)
        if how == "ended":
            raise CLIConnectionError("the session ended before answering")
        if how == "timeout":
            raise ControlRequestError(subtype, f"Control request timeout: {subtype}")
        raise ControlRequestError(subtype, payload or "Unknown error")

    # ------------------------------------------------------------------ requests from dcl

    async def _handle(self, request_id: str, kind: str, request: Dict[str, Any]) -> None:
        native = self._native
        assert native is not None
        try:
            if kind == "can_use_tool":
                result: Any = await self._can_use_tool(request)
            elif kind == "hook_callback":
                result = await self._hook_callback(request)
            elif kind == "tool_call":
                result = await self._tool_call(request)
            elif kind == "mcp_message":
                result = await self._raw_mcp(request)
            else:
                raise Exception(f"Unsupported control request subtype: {kind}")
            answer = json.dumps(result)
        except asyncio.CancelledError:
            raise  # withdrawn (dcl cancelled it, or it timed out): no answer
        except Exception as e:
            self._answer(native.respond_error, request_id, str(e) or type(e).__name__)
            return
        self._answer(native.respond, request_id, answer)

    def _answer(self, respond: Callable[[str, str], None], request_id: str, answer: str) -> None:
        try:
            respond(request_id, answer)
        except (DclError, KeyError):
            logger.debug("answer to %s not delivered: withdrawn, or the session ended", request_id)

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
        index = request.get("callback_index")
        if not isinstance(index, int) or not 0 <= index < len(self._hooks):
            raise Exception(f"No hook callback found for ID: {request.get('callback_id')}")
        callback = self._hooks[index]
        output = await _maybe_await(callback(request.get("input") or {}, request.get("tool_use_id"), {"signal": None}))
        return hook_output_wire(output)

    async def _tool_call(self, request: Dict[str, Any]) -> Dict[str, Any]:
        server = self._servers.get(str(request.get("server")))
        if server is None:
            raise Exception(f"Server '{request.get('server')}' not found")
        return await server.run_tool(str(request.get("tool", "")), request.get("arguments"))

    async def _raw_mcp(self, request: Dict[str, Any]) -> Optional[Dict[str, Any]]:
        handler = self._raw.get(str(request.get("server_name")))
        if handler is None:
            raise Exception(f"Server '{request.get('server_name')}' not found")
        return await handler(request.get("message") or {})


__all__ = ["HostSession", "hook_output_wire", "new_key", "next_events", "permission_wire", "pull"]
