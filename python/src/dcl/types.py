"""Typed messages, content blocks, permission results and hook types.

Names and fields follow claude-agent-sdk, so code written against it reads the same
objects here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Dict, List, Literal, Optional, TypedDict, Union

PermissionMode = Literal["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"]
"""Permission modes (Qoder's snake_case spellings are accepted too)."""

HookEvent = str
"""A hook event name such as ``"PreToolUse"`` or ``"PostToolUse"``."""


# --------------------------------------------------------------------------- content


@dataclass
class TextBlock:
    """A text block."""

    text: str


@dataclass
class ThinkingBlock:
    """A thinking block, with its signature."""

    thinking: str
    signature: str


@dataclass
class ToolUseBlock:
    """A tool call by the model."""

    id: str
    name: str
    input: Dict[str, Any]


@dataclass
class ToolResultBlock:
    """The result of a tool call."""

    tool_use_id: str
    content: Union[str, List[Dict[str, Any]], None] = None
    is_error: Optional[bool] = None


ContentBlock = Union[TextBlock, ThinkingBlock, ToolUseBlock, ToolResultBlock]


# --------------------------------------------------------------------------- messages


@dataclass
class UserMessage:
    """A user message: a prompt, or tool results fed back to the model."""

    content: Union[str, List[ContentBlock]]
    uuid: Optional[str] = None
    parent_tool_use_id: Optional[str] = None
    tool_use_result: Optional[Dict[str, Any]] = None
    origin: Optional[Dict[str, Any]] = None


@dataclass
class AssistantMessage:
    """One content block (or several) of a model response."""

    content: List[ContentBlock]
    model: str
    parent_tool_use_id: Optional[str] = None
    error: Optional[str] = None
    usage: Optional[Dict[str, Any]] = None
    message_id: Optional[str] = None
    stop_reason: Optional[str] = None
    session_id: Optional[str] = None
    uuid: Optional[str] = None


@dataclass
class SystemMessage:
    """A ``system`` message (``init``, ``status``, ``permission_denied``...); every field
    is kept in ``data``."""

    subtype: str
    data: Dict[str, Any]


@dataclass
class ResultMessage:
    """The end of one turn: cost, usage, and whether it failed."""

    subtype: str
    duration_ms: int
    duration_api_ms: int
    is_error: bool
    num_turns: int
    session_id: str
    stop_reason: Optional[str] = None
    total_cost_usd: Optional[float] = None
    usage: Optional[Dict[str, Any]] = None
    result: Optional[str] = None
    structured_output: Any = None
    model_usage: Optional[Dict[str, Any]] = None
    permission_denials: Optional[List[Any]] = None
    errors: Optional[List[str]] = None
    api_error_status: Optional[int] = None
    uuid: Optional[str] = None
    terminal_reason: Optional[str] = None
    startup_failure_reason: Optional[str] = None
    """Why the session could not start (``resume_target_not_found``...), if it could not."""


@dataclass
class StreamEvent:
    """A raw Messages-API stream event (with ``include_partial_messages``)."""

    uuid: str
    session_id: str
    event: Dict[str, Any]
    parent_tool_use_id: Optional[str] = None


Message = Union[UserMessage, AssistantMessage, SystemMessage, ResultMessage, StreamEvent]


# --------------------------------------------------------------------------- permissions

PermissionBehavior = Literal["allow", "deny", "ask"]
PermissionUpdateDestination = Literal["userSettings", "projectSettings", "localSettings", "session"]


@dataclass
class PermissionRuleValue:
    """One permission rule: a tool name and, optionally, its content (``git status:*``)."""

    tool_name: str
    rule_content: Optional[str] = None


@dataclass
class PermissionUpdate:
    """A change to the session's permissions, as suggested by dcl or returned by a
    ``can_use_tool`` callback in ``updated_permissions``."""

    type: Literal[
        "addRules", "replaceRules", "removeRules", "setMode", "addDirectories", "removeDirectories"
    ]
    rules: Optional[List[PermissionRuleValue]] = None
    behavior: Optional[PermissionBehavior] = None
    mode: Optional[str] = None
    directories: Optional[List[str]] = None
    destination: Optional[PermissionUpdateDestination] = None

    def to_dict(self) -> Dict[str, Any]:
        """The control-protocol form; raises ``ValueError`` when a needed field is
        missing."""
        out: Dict[str, Any] = {"type": self.type, "destination": self.destination or "session"}
        if self.type in ("addRules", "replaceRules", "removeRules"):
            if self.rules is None or self.behavior is None:
                raise ValueError(f"PermissionUpdate(type={self.type!r}) needs rules and behavior")
            rules: List[Dict[str, Any]] = []
            for r in self.rules:
                wire: Dict[str, Any] = {"toolName": r.tool_name}
                if r.rule_content is not None:
                    wire["ruleContent"] = r.rule_content
                rules.append(wire)
            out["rules"] = rules
            out["behavior"] = self.behavior
        elif self.type == "setMode":
            if self.mode is None:
                raise ValueError("PermissionUpdate(type='setMode') needs a mode")
            out["mode"] = self.mode
        elif self.type in ("addDirectories", "removeDirectories"):
            if self.directories is None:
                raise ValueError(f"PermissionUpdate(type={self.type!r}) needs directories")
            out["directories"] = list(self.directories)
        else:
            raise ValueError(f"unknown PermissionUpdate type {self.type!r}")
        return out

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> "PermissionUpdate":
        """Reads the control-protocol form (inverse of :meth:`to_dict`)."""
        rules = None
        if data.get("rules") is not None:
            rules = [
                PermissionRuleValue(tool_name=r.get("toolName", ""), rule_content=r.get("ruleContent"))
                for r in data["rules"]
            ]
        return cls(
            type=data.get("type", "addRules"),
            rules=rules,
            behavior=data.get("behavior"),
            mode=data.get("mode"),
            directories=data.get("directories"),
            destination=data.get("destination"),
        )


@dataclass
class ToolPermissionContext:
    """What a ``can_use_tool`` callback is told besides the tool name and input."""

    signal: Any = None
    suggestions: List[PermissionUpdate] = field(default_factory=list)
    tool_use_id: Optional[str] = None
    agent_id: Optional[str] = None
    blocked_path: Optional[str] = None
    decision_reason: Optional[str] = None
    title: Optional[str] = None
    display_name: Optional[str] = None
    description: Optional[str] = None


@dataclass
class PermissionResultAllow:
    """Allow the call, optionally with a changed input and permission updates."""

    behavior: Literal["allow"] = "allow"
    updated_input: Optional[Dict[str, Any]] = None
    updated_permissions: Optional[List[PermissionUpdate]] = None


@dataclass
class PermissionResultDeny:
    """Deny the call; ``message`` goes to the model, ``interrupt`` also stops the turn."""

    behavior: Literal["deny"] = "deny"
    message: str = ""
    interrupt: bool = False


PermissionResult = Union[PermissionResultAllow, PermissionResultDeny]

CanUseTool = Callable[
    [str, Dict[str, Any], ToolPermissionContext],
    Union[PermissionResult, Awaitable[PermissionResult]],
]
"""``can_use_tool(tool_name, input, context)``, sync or async."""


# --------------------------------------------------------------------------- hooks


class HookContext(TypedDict):
    """The third argument of a hook callback."""

    signal: Any


HookCallback = Callable[
    [Dict[str, Any], Optional[str], HookContext],
    Union[Dict[str, Any], Awaitable[Dict[str, Any]]],
]
"""``hook(input, tool_use_id, context) -> output``, sync or async. The output uses
``continue_`` / ``async_`` for the ``continue`` / ``async`` keys."""


@dataclass
class HookMatcher:
    """Hooks for one event, filtered by tool name (``None`` matches every tool)."""

    matcher: Optional[str] = None
    hooks: List[HookCallback] = field(default_factory=list)
    timeout: Optional[float] = None
    """Seconds dcl waits for these hooks."""
    on_failure: Optional[Literal["continue", "block"]] = None


__all__ = [
    "AssistantMessage",
    "CanUseTool",
    "ContentBlock",
    "HookCallback",
    "HookContext",
    "HookEvent",
    "HookMatcher",
    "Message",
    "PermissionBehavior",
    "PermissionMode",
    "PermissionResult",
    "PermissionResultAllow",
    "PermissionResultDeny",
    "PermissionRuleValue",
    "PermissionUpdate",
    "PermissionUpdateDestination",
    "ResultMessage",
    "StreamEvent",
    "SystemMessage",
    "TextBlock",
    "ThinkingBlock",
    "ToolPermissionContext",
    "ToolResultBlock",
    "ToolUseBlock",
    "UserMessage",
]
