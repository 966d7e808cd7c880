"""Sessions on disk, read the way claude-agent-sdk's helpers read them.

dcl writes every session's transcript in the reference CLI's layout
(``<home>/projects/<project key>/<session id>.jsonl``), so these and the SDKs' own
``list_sessions`` / ``get_session_messages`` see the same sessions. Homes follow the
environment as a session would: ``DCL_CONFIG_DIR`` (or ``data_dir``), ``CLAUDE_CONFIG_DIR``
/ ``~/.claude``, ``~/.dcl``.
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Mapping, Optional

from ._native import sessions as _sessions


def _request(op: str, directory: Optional[str], env: Optional[Mapping[str, str]], data_dir: Optional[str], **extra: Any) -> Any:
    req: Dict[str, Any] = {"op": op, "env": dict(os.environ if env is None else env)}
    if directory is not None:
        req["directory"] = os.path.abspath(os.fspath(directory))
    if data_dir is not None:
        req["dataDir"] = os.path.abspath(os.fspath(data_dir))
    req.update(extra)
    return json.loads(_sessions(json.dumps(req)))


def list_sessions(
    directory: Optional[str] = None,
    *,
    env: Optional[Mapping[str, str]] = None,
    data_dir: Optional[str] = None,
) -> List[Dict[str, Any]]:
    """Sessions newest first: this directory's, or every project's when ``directory`` is
    omitted. Each is a dict with ``session_id``, ``summary``, ``last_modified`` (ms),
    ``file_size``, ``custom_title``, ``first_prompt``, ``git_branch``, ``cwd``, ``tag``,
    ``created_at`` (ms) and ``path``."""
    return _request("list", directory, env, data_dir)


def get_session_messages(
    session_id: str,
    directory: Optional[str] = None,
    *,
    env: Optional[Mapping[str, str]] = None,
    data_dir: Optional[str] = None,
) -> List[Dict[str, Any]]:
    """A session's user and assistant messages, root first, each a dict with ``type``,
    ``uuid``, ``session_id``, ``message`` and ``parent_tool_use_id``. Empty when no home
    holds the session."""
    return _request("messages", directory, env, data_dir, sessionId=session_id)


__all__ = ["list_sessions", "get_session_messages"]
