"""Exceptions raised by dcl.

The hierarchy mirrors claude-agent-sdk's, so ``except`` clauses written for it carry over:

- :class:`DclError` (alias :data:`ClaudeSDKError`): base of everything.
- :class:`CLIConnectionError`: the session could not be opened, or is gone.

  - :class:`InvalidOptionsError` (also a :class:`ValueError`): options rejected by dcl.
  - :class:`SessionClosedError`: something was sent to a session that has ended.

- :class:`BadInputError` (also a :class:`ValueError`): a protocol line dcl could not use.
- :class:`ProcessError`: the run failed.

  - :class:`ResultError`: the run ended on an error ``result`` (API error, max turns...).

- :class:`ControlRequestError`: dcl answered a control request with an error.
- :class:`MessageParseError`: an outbound message lacked a required field.
- :class:`InternalError`: a failure inside dcl itself.

The first five classes are defined by the native module, so errors raised in Rust and in
Python are the same classes.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from ._native import (
    BadInputError,
    CLIConnectionError,
    DclError,
    InternalError,
    InvalidOptionsError,
    SessionClosedError,
)

ClaudeSDKError = DclError
"""claude-agent-sdk's name for the base class."""


class ProcessError(DclError):
    """The run failed. In-process there is no exit code unless one is given."""

    def __init__(
        self, message: str, exit_code: Optional[int] = None, stderr: Optional[str] = None
    ) -> None:
        self.exit_code = exit_code
        self.stderr = stderr
        if exit_code is not None:
            message = f"{message} (exit code: {exit_code})"
        if stderr:
            message = f"{message}\nError output: {stderr}"
        super().__init__(message)


def _result_errors(raw: Any) -> List[str]:
    if isinstance(raw, str):
        raw = [raw]
    if not isinstance(raw, list):
        return []
    return [e.strip() for e in raw if isinstance(e, str) and e.strip()]


def error_result_text(data: Dict[str, Any]) -> str:
    """The most telling text of an error ``result``: its errors, its result text, its
    subtype, or its HTTP status, in that order."""
    errors = _result_errors(data.get("errors"))
    if errors:
        return "; ".join(errors)
    result = data.get("result")
    if isinstance(result, str) and result.strip():
        return result.strip()
    subtype = data.get("subtype")
    if isinstance(subtype, str) and subtype and subtype != "success":
        return subtype
    status = data.get("api_error_status")
    if status is not None:
        return f"API error (HTTP {status})"
    return "unknown error"


class ResultError(ProcessError):
    """The run ended on a ``result`` with ``is_error: true``.

    Raised by :func:`dcl.query` after the error :class:`~dcl.ResultMessage` has been
    yielded, as claude-agent-sdk raises it when the CLI exits after one.

    Attributes:
        subtype: the result subtype (``error_max_turns``, ``error_during_execution``,
            or ``success`` for an API failure).
        errors: error strings of the result.
        result: the result text, if any.
        api_error_status: HTTP status of a failed model call, if any.
        terminal_reason: why the run ended (``api_error``, ``max_turns``...).
        startup_failure_reason: why the session could not start
            (``resume_target_not_found``...), if it could not.
        session_id: the session's id.
        data: the raw ``result`` message.
    """

    def __init__(
        self,
        message: str,
        data: Optional[Dict[str, Any]] = None,
        exit_code: Optional[int] = None,
    ) -> None:
        data = data if isinstance(data, dict) else {}
        self.data: Dict[str, Any] = data
        subtype = data.get("subtype")
        self.subtype: Optional[str] = subtype if isinstance(subtype, str) else None
        self.errors: List[str] = _result_errors(data.get("errors"))
        result = data.get("result")
        self.result: Optional[str] = result if isinstance(result, str) else None
        status = data.get("api_error_status")
        self.api_error_status: Optional[int] = status if isinstance(status, int) else None
        reason = data.get("terminal_reason")
        self.terminal_reason: Optional[str] = reason if isinstance(reason, str) else None
        startup = data.get("startup_failure_reason")
        self.startup_failure_reason: Optional[str] = startup if isinstance(startup, str) else None
        sid = data.get("session_id")
        self.session_id: Optional[str] = sid if isinstance(sid, str) else None
        super().__init__(message, exit_code=exit_code)

    @classmethod
    def from_result(cls, data: Dict[str, Any]) -> "ResultError":
        """Builds the exception for an error ``result`` message."""
        return cls(f"dcl returned an error result: {error_result_text(data)}", data=data)


class ControlRequestError(DclError):
    """dcl answered a control request (``set_model``, ``interrupt``...) with an error."""

    def __init__(self, subtype: str, message: str) -> None:
        self.subtype = subtype
        super().__init__(message)


class MessageParseError(DclError):
    """An outbound message lacked a field its type requires."""

    def __init__(self, message: str, data: Optional[Dict[str, Any]] = None) -> None:
        self.data = data
        super().__init__(message)


__all__ = [
    "BadInputError",
    "CLIConnectionError",
    "ClaudeSDKError",
    "ControlRequestError",
    "DclError",
    "InternalError",
    "InvalidOptionsError",
    "MessageParseError",
    "ProcessError",
    "ResultError",
    "SessionClosedError",
    "error_result_text",
]
