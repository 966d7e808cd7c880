"""``dcl.query``: one prompt (or a stream of them) in, messages out; and
``dcl.query_sync`` for scripts without an event loop."""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any, AsyncIterable, AsyncIterator, Dict, List, Optional, Union

from ._errors import ResultError
from ._host import HostSession
from ._parse import parse_message
from .options import Options
from .types import Message

logger = logging.getLogger("dcl")


async def _stream_prompts(host: HostSession, prompts: AsyncIterable[Dict[str, Any]]) -> None:
    written = 0
    try:
        async for message in prompts:
            if host.ended:
                break
            host.write(message)
            written += 1
    except Exception:
        logger.exception("the prompt stream failed; ending input")
    try:
        if written and host.bidirectional:
            # Callbacks must be answerable until the last prompt's turn is over.
            await host.wait_for_results(written)
        host.end_input()
    except Exception:  # the session is gone already
        logger.debug("ending input failed", exc_info=True)


async def _end_after_result(host: HostSession) -> None:
    await host.wait_for_results(1)
    host.end_input()


async def query(
    *,
    prompt: Union[str, AsyncIterable[Dict[str, Any]]],
    options: Any = None,
) -> AsyncIterator[Message]:
    """Runs a prompt in a new in-process session and yields its messages.

    ``prompt`` is a string or an async iterable of user-message dicts
    (``{"type": "user", "message": {"role": "user", "content": "..."}}``). ``options``
    is a :class:`dcl.Options`, a mapping, or a ``ClaudeAgentOptions``.

    The session ends when its input is done: right after the prompt when nothing needs
    answering, otherwise after the (last) prompt's result. If the last result is an
    error, :class:`dcl.ResultError` is raised after it has been yielded.

    Example::

        async for message in dcl.query(prompt="hi", options=dcl.Options(model="mock-model")):
            print(message)
    """
    host = HostSession(Options.from_any(options))
    tasks = []
    try:
        await host.start()
        loop = asyncio.get_running_loop()
        if isinstance(prompt, str):
            host.write(
                {
                    "type": "user",
                    "session_id": "",
                    "message": {"role": "user", "content": prompt},
                    "parent_tool_use_id": None,
                }
            )
            if host.bidirectional:
                tasks.append(loop.create_task(_end_after_result(host)))
            else:
                host.end_input()
        else:
            tasks.append(loop.create_task(_stream_prompts(host, prompt)))
        async for data in host.messages():
            message = parse_message(data)
            if message is not None:
                yield message
        if host.last_error_result is not None:
            raise ResultError.from_result(host.last_error_result)
    finally:
        for task in tasks:
            task.cancel()
        await host.close()


def query_sync(
    *,
    prompt: Union[str, List[Dict[str, Any]]],
    options: Any = None,
    timeout: Optional[float] = None,
) -> List[Message]:
    """Runs :func:`query` to the end and returns every message, for scripts.

    ``prompt`` may also be a list of user-message dicts. Callbacks in ``options`` (sync
    or async) run on a private event loop; when called from a thread that already runs
    an event loop, the query runs in a helper thread. Raises what :func:`query` raises
    (:class:`dcl.ResultError` after an error result) and ``TimeoutError`` after
    ``timeout`` seconds.
    """

    async def prompts(items: List[Dict[str, Any]]) -> AsyncIterator[Dict[str, Any]]:
        for item in items:
            yield item

    async def collect() -> List[Message]:
        source: Union[str, AsyncIterable[Dict[str, Any]]] = prompt if isinstance(prompt, str) else prompts(prompt)

        async def run() -> List[Message]:
            return [m async for m in query(prompt=source, options=options)]

        try:
            return await asyncio.wait_for(run(), timeout)
        except asyncio.TimeoutError:
            raise TimeoutError(f"query_sync: no end within {timeout}s") from None

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(collect())
    box: Dict[str, Any] = {}

    def worker() -> None:
        try:
            box["value"] = asyncio.run(collect())
        except BaseException as e:
            box["error"] = e

    thread = threading.Thread(target=worker, name="dcl-query-sync", daemon=True)
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return list(box["value"])


__all__ = ["query", "query_sync"]
