"""dcl's session stores as SDK ``SessionStore`` objects.

:class:`DclSessionStore` satisfies the ``SessionStore`` protocol of claude-agent-sdk and
qoder-agent-sdk (``append``, ``load``, ``list_sessions``, ``list_session_summaries``,
``delete``, ``list_subkeys``) on the stores dcl itself drains sessions to, so a Python
host and dcl workers share one Postgres table or Redis keyspace::

    from dcl.store import DclSessionStore
    store = DclSessionStore("postgres://user@db/app?table=claude_session_store")

URLs are those of ``--session-store``: ``postgres://…`` (``?table=``), ``redis://…`` /
``rediss://…`` (``?prefix=``) and ``file:/dir``. Without a password in the URL,
``DCL_SESSION_STORE_PASSWORD`` is used. Entries are appended in order; one whose ``uuid``
the key already holds is not stored twice.
"""

from __future__ import annotations

import json
from typing import Any, Dict, List, Mapping, Optional

from ._native import SessionStore as _NativeStore


def _key(key: Mapping[str, Any]) -> str:
    out: Dict[str, Any] = {
        "project_key": key["project_key"],
        "session_id": key["session_id"],
    }
    subpath = key.get("subpath")
    if subpath:
        out["subpath"] = subpath
    return json.dumps(out)


class DclSessionStore:
    """A dcl session store (Postgres, Redis or a folder) as an SDK ``SessionStore``."""

    def __init__(self, url: str) -> None:
        self._native = _NativeStore(url)
        #: The store's URL: ``dcl.Options(session_store=store)`` drains sessions there.
        self.dcl_url = url

    async def append(self, key: Mapping[str, Any], entries: List[Dict[str, Any]]) -> None:
        if not entries:
            return
        await self._native.append(_key(key), json.dumps(list(entries)))

    async def load(self, key: Mapping[str, Any]) -> Optional[List[Dict[str, Any]]]:
        text = await self._native.load(_key(key))
        return None if text is None else json.loads(text)

    async def list_sessions(self, project_key: str) -> List[Dict[str, Any]]:
        return json.loads(await self._native.list_sessions(project_key))

    async def list_session_summaries(self, project_key: str) -> List[Dict[str, Any]]:
        return json.loads(await self._native.list_session_summaries(project_key))

    async def delete(self, key: Mapping[str, Any]) -> None:
        await self._native.delete(_key(key))

    async def list_subkeys(self, key: Mapping[str, Any]) -> List[str]:
        return json.loads(await self._native.list_subkeys(_key(key)))

    def __repr__(self) -> str:
        return f"DclSessionStore({self._native!r})"
