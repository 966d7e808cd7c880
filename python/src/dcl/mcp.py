"""In-process MCP tools: ``@dcl.tool`` and ``dcl.create_sdk_mcp_server``.

The model sees a tool ``add`` of a server ``calc`` as ``mcp__calc__add``. dcl reaches the
server through ``mcp_message`` control requests carrying JSON-RPC; this module answers
``initialize``, ``notifications/*``, ``ping``, ``tools/list`` and ``tools/call`` itself,
so no ``mcp`` package is needed.
"""

from __future__ import annotations

import inspect
import logging
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Dict, Generic, List, Optional, TypedDict, TypeVar, Union

logger = logging.getLogger(__name__)

T = TypeVar("T")

ToolHandler = Callable[[Any], Union[Dict[str, Any], Awaitable[Dict[str, Any]]]]
"""``handler(args) -> {"content": [...], "is_error": bool}``, sync or async."""

#: The MCP protocol revision answered when the client names none.
DEFAULT_PROTOCOL_VERSION = "2025-06-18"


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


_JSON_TYPES: Dict[str, Any] = {
    "string": str,
    "integer": int,
    "number": (int, float),
    "boolean": bool,
    "array": list,
    "object": dict,
}


def _validate(arguments: Any, schema: Dict[str, Any]) -> Optional[str]:
    """A small check of required keys and top-level types; ``jsonschema`` is used
    instead when it is installed."""
    try:
        import jsonschema  # type: ignore[import-untyped]

        try:
            jsonschema.validate(instance=arguments, schema=schema)
        except jsonschema.ValidationError as e:
            return str(e.message)
        return None
    except ImportError:
        pass
    if not isinstance(arguments, dict):
        return "arguments must be an object"
    for key in schema.get("required", []):
        if key not in arguments:
            return f"'{key}' is a required property"
    for key, sub in (schema.get("properties") or {}).items():
        want = _JSON_TYPES.get(str(sub.get("type"))) if isinstance(sub, dict) else None
        if key in arguments and want is not None:
            value = arguments[key]
            if isinstance(value, bool) and sub.get("type") in ("integer", "number"):
                return f"{value!r} is not of type '{sub.get('type')}'"
            if not isinstance(value, want):
                return f"{value!r} is not of type '{sub.get('type')}'"
    return None


def _content(items: Any) -> List[Dict[str, Any]]:
    out: List[Dict[str, Any]] = []
    for item in items or []:
        if not isinstance(item, dict):
            out.append({"type": "text", "text": str(item)})
        elif item.get("type") == "text":
            out.append({"type": "text", "text": str(item.get("text", ""))})
        elif item.get("type") == "image":
            out.append({"type": "image", "data": item.get("data"), "mimeType": item.get("mimeType")})
        elif item.get("type") == "resource" and "text" in (item.get("resource") or {}):
            out.append({"type": "text", "text": item["resource"]["text"]})
        else:
            logger.warning("unsupported content type %r in a tool result; skipped", item.get("type"))
    return out


class SdkMcpServer:
    """An MCP server living in this process, answering JSON-RPC from dcl."""

    def __init__(self, name: str, version: str = "1.0.0", tools: Optional[List[SdkMcpTool[Any]]] = None):
        self.name = name
        self.version = version
        self.tools: Dict[str, SdkMcpTool[Any]] = {t.name: t for t in tools or []}
        self._schemas = {t.name: input_json_schema(t.input_schema) for t in tools or []}

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

    async def call_tool(self, name: str, arguments: Any) -> Dict[str, Any]:
        """Runs one tool; every failure becomes an ``isError`` result the model reads."""

        def error(text: str) -> Dict[str, Any]:
            return {"content": [{"type": "text", "text": text}], "isError": True}

        t = self.tools.get(name)
        if t is None:
            return error(f"Tool '{name}' not found")
        problem = _validate(arguments if arguments is not None else {}, self._schemas[name])
        if problem is not None:
            return error(f"Input validation error: {problem}")
        try:
            result = t.handler(arguments if arguments is not None else {})
            if inspect.isawaitable(result):
                result = await result
        except Exception as e:  # the model sees it; the session goes on
            return error(str(e) or type(e).__name__)
        if not isinstance(result, dict):
            return error(f"tool {name} returned {type(result).__name__}, expected a dict")
        return {
            "content": _content(result.get("content")),
            "isError": bool(result.get("is_error", result.get("isError", False))),
        }

    async def handle(self, message: Dict[str, Any]) -> Optional[Dict[str, Any]]:
        """Answers one JSON-RPC message; ``None`` for notifications."""
        method = message.get("method")
        msg_id = message.get("id")
        if "id" not in message or method is None:
            return None  # a notification (or a stray response): nothing to answer
        params = message.get("params") or {}

        def ok(result: Dict[str, Any]) -> Dict[str, Any]:
            return {"jsonrpc": "2.0", "id": msg_id, "result": result}

        if method == "initialize":
            return ok(
                {
                    "protocolVersion": params.get("protocolVersion") or DEFAULT_PROTOCOL_VERSION,
                    "capabilities": {"tools": {"listChanged": False}},
                    "serverInfo": {"name": self.name, "version": self.version},
                }
            )
        if method == "ping":
            return ok({})
        if method == "tools/list":
            return ok({"tools": self.list_tools()})
        if method == "tools/call":
            return ok(await self.call_tool(str(params.get("name", "")), params.get("arguments")))
        return {
            "jsonrpc": "2.0",
            "id": msg_id,
            "error": {"code": -32601, "message": f"Method not found: {method}"},
        }


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
