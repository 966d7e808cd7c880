"""Outbound protocol lines (dicts) to typed messages."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Union

from ._errors import MessageParseError
from .types import (
    AssistantMessage,
    ContentBlock,
    Message,
    ResultMessage,
    StreamEvent,
    SystemMessage,
    TextBlock,
    ThinkingBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
)


def _blocks(raw: List[Any], data: Dict[str, Any]) -> List[ContentBlock]:
    out: List[ContentBlock] = []
    for b in raw:
        if not isinstance(b, dict) or "type" not in b:
            raise MessageParseError("content block without a type", data)
        try:
            kind = b["type"]
            if kind == "text":
                out.append(TextBlock(text=b["text"]))
            elif kind == "thinking":
                out.append(ThinkingBlock(thinking=b["thinking"], signature=b.get("signature", "")))
            elif kind in ("tool_use", "server_tool_use"):
                out.append(ToolUseBlock(id=b["id"], name=b["name"], input=b.get("input") or {}))
            elif kind == "tool_result":
                out.append(
                    ToolResultBlock(
                        tool_use_id=b["tool_use_id"],
                        content=b.get("content"),
                        is_error=b.get("is_error"),
                    )
                )
            # Other block types (redacted_thinking, images...) are skipped, as by the SDK.
        except KeyError as e:
            raise MessageParseError(f"{b.get('type')} block lacks {e}", data) from e
    return out


def parse_message(data: Dict[str, Any]) -> Optional[Message]:
    """Turns one outbound line into a typed message; ``None`` for types not surfaced to
    users (unknown types, legacy events, keep-alives)."""
    if not isinstance(data, dict):
        raise MessageParseError(f"expected a JSON object, got {type(data).__name__}", None)
    kind = data.get("type")
    if kind is None:
        raise MessageParseError("message without a type", data)
    try:
        if kind == "user":
            content: Union[str, List[Any]] = data["message"]["content"]
            return UserMessage(
                content=content if isinstance(content, str) else _blocks(content, data),
                uuid=data.get("uuid"),
                parent_tool_use_id=data.get("parent_tool_use_id"),
                tool_use_result=data.get("tool_use_result"),
                origin=data.get("origin"),
            )
        if kind == "assistant":
            msg = data["message"]
            if not isinstance(msg.get("content"), list):
                raise MessageParseError("assistant content must be a list", data)
            return AssistantMessage(
                content=_blocks(msg["content"], data),
                model=msg["model"],
                parent_tool_use_id=data.get("parent_tool_use_id"),
                error=data.get("error"),
                usage=msg.get("usage"),
                message_id=msg.get("id"),
                stop_reason=msg.get("stop_reason"),
                session_id=data.get("session_id"),
                uuid=data.get("uuid"),
            )
        if kind == "system":
            return SystemMessage(subtype=data["subtype"], data=data)
        if kind == "result":
            return ResultMessage(
                subtype=data["subtype"],
                duration_ms=data["duration_ms"],
                duration_api_ms=data["duration_api_ms"],
                is_error=data["is_error"],
                num_turns=data["num_turns"],
                session_id=data["session_id"],
                stop_reason=data.get("stop_reason"),
                total_cost_usd=data.get("total_cost_usd"),
                usage=data.get("usage"),
                result=data.get("result"),
                structured_output=data.get("structured_output"),
                model_usage=data.get("modelUsage"),
                permission_denials=data.get("permission_denials"),
                errors=data.get("errors"),
                api_error_status=data.get("api_error_status"),
                uuid=data.get("uuid"),
                terminal_reason=data.get("terminal_reason"),
                startup_failure_reason=data.get("startup_failure_reason"),
            )
        if kind == "stream_event":
            return StreamEvent(
                uuid=data["uuid"],
                session_id=data["session_id"],
                event=data["event"],
                parent_tool_use_id=data.get("parent_tool_use_id"),
            )
    except KeyError as e:
        raise MessageParseError(f"{kind} message lacks {e}", data) from e
    return None


__all__ = ["parse_message"]
