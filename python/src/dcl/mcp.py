"""In-process MCP tools: ``@dcl.tool`` and ``dcl.create_sdk_mcp_server``.

The model sees a tool ``add`` of a server ``calc`` as ``mcp__calc__add``. dcl reaches the
server through ``mcp_message`` control requests carrying JSON-RPC. The JSON-RPC
(``initialize``, ``notifications/*``, ``ping``, ``tools/list``, argument validation and
the shape of ``tools/call`` answers) is answered by dcl's Rust host; this module declares
the tools and runs their functions, so no ``mcp`` package is needed.
"""

from __future__ import annotations

import inspect
import json
import logging
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Dict, Generic, List, Optional, TypedDict, TypeVar, Union

from . import _native

logger = logging.getLogger(__name__)

T = TypeVar("T")

ToolHandler = Callable[[Any], Union[Dict[str, Any], Awaitable[Dict[str, Any]]]]
"""``handler(args) -> {"content": [...], "is_error": bool}``, sync or async."""


@dataclass
class SdkMcpTool(Generic[T]):
    """A tool served in-process (made by :func:`tool`)."""

    name: str
    description: str
    input_schema: Union[type, Dict[str, Any]]
    handler: ToolHandler
    annotations: Optional[Dict[str, Any]] = None


def tool(
    name: str,
    description: str,
    input_schema: Union[type, Dict[str, Any]],
    annotations: Optional[Dict[str, Any]] = None,
) -> Callable[[ToolHandler], SdkMcpTool[Any]]:
    """Decorator that turns a function into an in-process MCP tool.

    ``input_schema`` is a JSON Schema (``{"type": "object", "properties": ...}``), a
    mapping of parameter names to Python types (``{"a": int, "b": int}``), or a
    ``TypedDict`` class. The function receives the arguments dict and returns
    ``{"content": [{"type": "text", "text": ...}], "is_error": False}``; it may be sync or
    async. An exception it raises reaches the model as an error result.

    Example::

        @dcl.tool("add", "Add two numbers", {"a": int, "b": int})
        async def add(args):
            return {"content": [{"type": "text", "text": str(args["a"] + args["b"])}]}
    """

    def decorator(handler: ToolHandler) -> SdkMcpTool[Any]:
        return SdkMcpTool(
            name=name,
            description=description,
            input_schema=input_schema,
            handler=handler,
            annotations=annotations,
        )

    return decorator


_PY_TYPES: Dict[Any, str] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    list: "array",
    dict: "object",
}


def _type_schema(t: Any) -> Dict[str, Any]:
    if isinstance(t, dict):
        return t
    if t in _PY_TYPES:
        return {"type": _PY_TYPES[t]}
    origin = getattr(t, "__origin__", None)
    if origin in _PY_TYPES:
        return {"type": _PY_TYPES[origin]}
    return {"type": "string"}


def input_json_schema(schema: Union[type, Dict[str, Any]]) -> Dict[str, Any]:
    """The JSON Schema sent in ``tools/list`` for a tool's declared ``input_schema``."""
    if isinstance(schema, dict):
        if isinstance(schema.get("type"), str) and "properties" in schema:
            return schema
        props = {k: _type_schema(v) for k, v in schema.items()}
        return {"type": "object", "properties": props, "required": list(props)}
    hints = getattr(schema, "__annotations__", None)
    if isinstance(hints, dict):
        props = {k: _type_schema(v) for k, v in hints.items()}
        required = sorted(getattr(schema, "__required_keys__", set(props)))
        return {"type": "object", "properties": props, "required": required}
    return {"type": "object", "properties": {}}


class SdkMcpServer:
    """An MCP server living in this process: its tools' declarations and functions. Its
    JSON-RPC is answered by dcl's Rust host (``dcl._native``), in a session and in
    :meth:`handle` alike."""

    def __init__(self, name: str, version: str = "1.0.0", tools: Optional[List[SdkMcpTool[Any]]] = None):
        self.name = name
        self.version = version
        self.tools: Dict[str, SdkMcpTool[Any]] = {t.name: t for t in tools or []}
        self._schemas = {t.name: input_json_schema(t.input_schema) for t in tools or []}
        self._rpc: Optional[Any] = None

    def list_tools(self) -> List[Dict[str, Any]]:
        """The ``tools/list`` entries."""
        out = []
        for t in self.tools.values():
            entry: Dict[str, Any] = {
                "name": t.name,
                "description": t.description,
                "inputSchema": self._schemas[t.name],
            }
            if t.annotations:
                entry["annotations"] = dict(t.annotations)
            out.append(entry)
        return out

    def spec(self) -> Dict[str, Any]:
        """The declaration the Rust host serves: name, version, tools with schemas."""
        return {"name": self.name, "version": self.version, "tools": self.list_tools()}

    async def run_tool(self, name: str, arguments: Any) -> Dict[str, Any]:
        """Runs one tool's function on arguments the host has validated; returns its raw
        result (``{"content": [...], "is_error": ...}``). What it raises is the caller's
        to turn into an error result."""
        t = self.tools.get(name)
        if t is None:
            raise KeyError(f"Tool '{name}' not found")
        result = t.handler(arguments if arguments is not None else {})
        if inspect.isawaitable(result):
            result = await result
        if not isinstance(result, dict):
            raise TypeError(f"tool {name} returned {type(result).__name__}, expected a dict")
        return result

    async def handle(self, message: Dict[str, Any]) -> Optional[Dict[str, Any]]:
        """Answers one JSON-RPC message; ``None`` for notifications."""
        if self._rpc is None:
            self._rpc = _native.McpServer(json.dumps(self.spec()))
        step = self._rpc.handle(json.dumps(message))
        if step is None:
            return None
        if step[0] == "reply":
            reply: Dict[str, Any] = json.loads(step[1])
            return reply
        _, tool_name, arguments, rpc_id = step
        try:
            result = await self.run_tool(tool_name, json.loads(arguments))
        except Exception as e:  # the model sees it; the session goes on
            answer = _native.McpServer.tool_result(rpc_id, None, str(e) or type(e).__name__)
        else:
            answer = _native.McpServer.tool_result(rpc_id, json.dumps(result), None)
        out: Dict[str, Any] = json.loads(answer)
        return out


class McpSdkServerConfig(TypedDict):
    """What :func:`create_sdk_mcp_server` returns; put it in ``Options.mcp_servers``."""

    type: str
    name: str
    instance: Any


def create_sdk_mcp_server(
    name: str, version: str = "1.0.0", tools: Optional[List[SdkMcpTool[Any]]] = None
) -> McpSdkServerConfig:
    """Creates an in-process MCP server from :func:`tool` functions.

    Example::

        calc = dcl.create_sdk_mcp_server("calc", "1.0.0", [add])
        options = dcl.Options(mcp_servers={"calc": calc}, allowed_tools=["mcp__calc__add"])
    """
    return McpSdkServerConfig(type="sdk", name=name, instance=SdkMcpServer(name, version, tools))


__all__ = [
    "McpSdkServerConfig",
    "SdkMcpServer",
    "SdkMcpTool",
    "ToolHandler",
    "create_sdk_mcp_server",
    "input_json_schema",
    "tool",
]
