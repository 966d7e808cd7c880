"""One worker of test_store_workers.py, run as its own process (its own HOME: another
machine): one turn through the in-process binding, on a model at ``base_url``, with the
session store ``store``; resumes ``resume`` when given. Prints the result as one JSON line.

Usage: python store_worker.py '{"cwd": ..., "base_url": ..., "store": ..., "prompt": ...,
"resume": null}'
"""

from __future__ import annotations

import json
import sys

import dcl


def main() -> None:
    args = json.loads(sys.argv[1])
    options = dcl.Options(
        model="claude-test",
        cwd=args["cwd"],
        base_url=args["base_url"],
        api_key="sk-ant-test",
        session_store=args["store"],
        resume=args.get("resume"),
    )
    messages = list(dcl.query_sync(prompt=args["prompt"], options=options))
    results = [m for m in messages if isinstance(m, dcl.ResultMessage)]
    if not results:
        sys.exit(f"no result among {messages!r}")
    r = results[-1]
    print(json.dumps({"subtype": r.subtype, "session_id": r.session_id, "result": r.result}))


if __name__ == "__main__":
    main()
