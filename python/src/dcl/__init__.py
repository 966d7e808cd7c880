"""dcl in-process: the dcl agent runtime as a Python library, no subprocess.

The API is claude-agent-sdk's, so code written for it reads the same::

    import dcl

    async for message in dcl.query(prompt="hi", options=dcl.Options(model="mock-model")):
        print(message)

    async with dcl.Client(dcl.Options(model="mock-model", can_use_tool=approve)) as client:
        await client.query("please FAKE_WRITE notes.txt")
        async for message in client.receive_response():
            ...

- :func:`query` / :func:`query_sync`: one prompt (or a stream of them), messages out.
- :class:`Client`: follow-ups, interrupts, live settings.
- :class:`Options`: claude-agent-sdk's option names (qoder-agent-sdk's accepted too).
- :func:`tool` and :func:`create_sdk_mcp_server`: tools served from this process.
- ``dcl.transport.DclTransport``: claude-agent-sdk's own client, in-process.
- :class:`Session` (``dcl._native``): the raw bridge: ``send`` / ``recv`` lines.

Callbacks (``can_use_tool``, hooks, tools) run on the event loop that reads the session;
Rust never calls into Python: dcl asks through control requests that this package
answers.
"""

from __future__ import annotations

import atexit

from ._errors import (
    BadInputError,
    ClaudeSDKError,
    CLIConnectionError,
    ControlRequestError,
    DclError,
    InternalError,
    InvalidOptionsError,
    MessageParseError,
    ProcessError,
    ResultError,
    SessionClosedError,
)
from ._native import DCL_VERSION, PROTOCOL_LEVEL, Session, close_session_stores, open
from ._parse import parse_message
from .client import Client
from .mcp import McpSdkServerConfig, SdkMcpServer, SdkMcpTool, create_sdk_mcp_server, tool
from .options import Options
from .query import query, query_sync
from .sessions import get_session_messages, list_sessions
from .types import (
    AssistantMessage,
    CanUseTool,
    ContentBlock,
    HookCallback,
    HookContext,
    HookEvent,
    HookMatcher,
    Message,
    PermissionMode,
    PermissionResult,
    PermissionResultAllow,
    PermissionResultDeny,
    PermissionRuleValue,
    PermissionUpdate,
    ResultMessage,
    StreamEvent,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolPermissionContext,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)

from ._generated.options import SessionOptionsJson

__version__ = DCL_VERSION

ClaudeSDKClient = Client
"""claude-agent-sdk's name for :class:`Client`."""
ClaudeAgentOptions = Options
"""claude-agent-sdk's name for :class:`Options`."""


# What sessions queued for a session store (dcl.Options(session_store=...)) reaches it
# before the interpreter exits, and their leases are given up for the next worker: a
# session's own close may still be draining on another thread at exit.
atexit.register(close_session_stores)

__all__ = [
    "list_sessions",
    "get_session_messages",
    "DCL_VERSION",
    "PROTOCOL_LEVEL",
    "AssistantMessage",
    "BadInputError",
    "CLIConnectionError",
    "CanUseTool",
    "ClaudeAgentOptions",
    "ClaudeSDKClient",
    "ClaudeSDKError",
    "Client",
    "ContentBlock",
    "ControlRequestError",
    "DclError",
    "HookCallback",
    "HookContext",
    "HookEvent",
    "HookMatcher",
    "InternalError",
    "InvalidOptionsError",
    "McpSdkServerConfig",
    "Message",
    "MessageParseError",
    "Options",
    "PermissionMode",
    "PermissionResult",
    "PermissionResultAllow",
    "PermissionResultDeny",
    "PermissionRuleValue",
    "PermissionUpdate",
    "ProcessError",
    "ResultError",
    "ResultMessage",
    "SdkMcpServer",
    "SdkMcpTool",
    "Session",
    "SessionClosedError",
    "SessionOptionsJson",
    "StreamEvent",
    "SystemMessage",
    "TextBlock",
    "ThinkingBlock",
    "ToolPermissionContext",
    "ToolResultBlock",
    "ToolUseBlock",
    "UserMessage",
    "__version__",
    "create_sdk_mcp_server",
    "open",
    "parse_message",
    "query",
    "query_sync",
    "tool",
]
