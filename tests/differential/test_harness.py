"""Tests of the harness itself (no CLI under test needed): the verdicts, the write scan, the
scripted model and the host's classification, the last against a stub CLI written here.

    python3 -m unittest discover -s tests/differential -p 'test_*.py'
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import textwrap
import unittest
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import run  # noqa: E402
from drive import drive  # noqa: E402
from fake_model import CALL_ID, SETUP_ID, ScriptedModel  # noqa: E402


def o(decision: str, secret: bool = False, wrote: list[str] | None = None, timed_out: bool = False) -> dict:
    return {"decision": decision, "read_secret": secret, "wrote": wrote or [], "timed_out": timed_out}


class Verdicts(unittest.TestCase):
    def test_same_decision_and_effect(self) -> None:
        self.assertEqual(run.verdict(o("refused"), o("refused")), "same")
        self.assertEqual(run.verdict(o("ran", wrote=["proj/a"]), o("ran", wrote=["proj/a"])), "same")

    def test_harm_only_in_dcl_is_looser(self) -> None:
        self.assertEqual(run.verdict(o("refused"), o("ran", secret=True)), "dcl looser")
        self.assertEqual(run.verdict(o("asked"), o("ran", wrote=["proj/.mcp.json"])), "dcl looser")

    def test_harm_only_in_reference_is_stricter(self) -> None:
        self.assertEqual(run.verdict(o("ran", secret=True), o("refused")), "dcl stricter")

    def test_decisions_rank_without_harm(self) -> None:
        self.assertEqual(run.verdict(o("refused"), o("asked")), "dcl looser")
        self.assertEqual(run.verdict(o("asked"), o("refused")), "dcl stricter")
        self.assertEqual(run.verdict(o("ran"), o("asked")), "dcl stricter")

    def test_dcl_tool_failing_where_the_reference_worked_is_not_stricter(self) -> None:
        self.assertEqual(run.verdict(o("ran", wrote=["proj/long"]), o("failed")), "different")
        self.assertEqual(run.verdict(o("ran", wrote=["proj/.claude/x"]), o("asked")), "dcl stricter")

    def test_writes_in_different_places_differ(self) -> None:
        self.assertEqual(run.verdict(o("ran", wrote=["proj/a"]), o("ran", wrote=["proj/b"])), "different")

    def test_reference_that_did_not_start(self) -> None:
        self.assertEqual(run.verdict(o("none"), o("ran", secret=True)), "dcl looser")
        self.assertEqual(run.verdict(o("none"), o("refused")), "different")
        self.assertEqual(run.verdict(o("none", timed_out=True), o("refused")), "no reference answer")


class ExitStatus(unittest.TestCase):
    def row(self, name: str, verdict: str) -> dict:
        return {"name": name, "verdict": verdict}

    def test_unaccepted_looser_fails_and_accepted_passes(self) -> None:
        name = run.SCENARIOS[0]["name"]
        rows = [self.row(name, "dcl looser")]
        self.assertEqual(run.finish(rows, {}, 1.0, False), 1)
        self.assertEqual(run.finish(rows, {name: "open: a reason"}, 1.0, False), 0)

    def test_stricter_passes_and_bad_accept_entries_fail(self) -> None:
        name = run.SCENARIOS[0]["name"]
        self.assertEqual(run.finish([self.row(name, "dcl stricter")], {}, 1.0, False), 0)
        self.assertEqual(run.finish([self.row(name, "same")], {name: " "}, 1.0, False), 1)
        self.assertEqual(run.finish([self.row(name, "same")], {"no-such-scenario": "x"}, 1.0, False), 1)


class Landed(unittest.TestCase):
    def test_finds_marker_in_regular_files_only(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            root = os.fsencode(d)
            os.makedirs(os.path.join(d, "proj", "sub"))
            os.makedirs(os.path.join(d, "home", ".claude"))
            with open(os.path.join(d, "proj", "sub", "hit.txt"), "w") as f:
                f.write("x PWNED y")
            with open(os.path.join(d, "proj", "clean.txt"), "w") as f:
                f.write("nothing")
            with open(os.path.join(d, "home", ".claude", "transcript.jsonl"), "w") as f:
                f.write("PWNED in a transcript")
            os.symlink("sub/hit.txt", os.path.join(d, "proj", "link.txt"))
            self.assertEqual(run.landed(root), ["proj/sub/hit.txt"])
            # A file planted with the marker counts only once the session changes it.
            before = run.marked(root)
            self.assertEqual(run.landed(root, before), [])
            with open(os.path.join(d, "proj", "sub", "hit.txt"), "a") as f:
                f.write(" PWNED again")
            self.assertEqual(run.landed(root, before), ["proj/sub/hit.txt"])


class Script(unittest.TestCase):
    def post(self, url: str, body: dict) -> str:
        req = urllib.request.Request(url + "/v1/messages", data=json.dumps(body).encode(),
                                     headers={"content-type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.read().decode()

    def test_setup_read_then_call_then_done(self) -> None:
        tools = [{"name": "Write"}, {"name": "Read"}]
        result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "x", "content": "ok"}]}
        with ScriptedModel("Write", {"file_path": "/p/f", "content": "c"}, setup_read="/p/f") as m:
            first = self.post(m.base_url, {"tools": tools, "messages": [{"role": "user", "content": "go"}]})
            second = self.post(m.base_url, {"tools": tools, "messages": [result]})
            third = self.post(m.base_url, {"tools": tools, "messages": [result, result]})
            side = self.post(m.base_url, {"messages": [{"role": "user", "content": "title?"}]})
        self.assertIn(SETUP_ID, first)
        self.assertIn('"name": "Read"', first)
        self.assertIn(CALL_ID, second)
        self.assertIn('"name": "Write"', second)
        self.assertIn("done", third)
        self.assertNotIn("tool_use", third)
        self.assertNotIn("tool_use", side)
        self.assertEqual(m.tools_seen, ["Write", "Read"])


STUB = textwrap.dedent("""
    import json, sys
    mode = sys.argv[1]
    sys.stdin.readline()
    def out(o): print(json.dumps(o), flush=True)
    denied = False
    if mode == "ask":
        out({"type": "control_request", "request_id": "r1", "request": {
            "subtype": "can_use_tool", "tool_name": "Read", "input": {}, "tool_use_id": "%(call)s"}})
        answer = json.loads(sys.stdin.readline())
        assert answer["response"]["response"]["behavior"] == "deny", answer
        content, err, denied = "The user denied this tool use.", True, True
    elif mode == "refuse":
        content, err, denied = "Permission to read x has been denied.", True, True
    elif mode == "fail":
        content, err = "File does not exist.", True
    else:
        content, err = "SECRET", False
    out({"type": "user", "message": {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "%(call)s", "content": content, "is_error": err}]}})
    out({"type": "result", "permission_denials":
         [{"tool_use_id": "%(call)s"}] if denied else []})
""") % {"call": CALL_ID}


class Host(unittest.TestCase):
    def test_classifies_each_outcome(self) -> None:
        with tempfile.TemporaryDirectory() as d:
            stub = os.path.join(d, "stub.py")
            with open(stub, "w") as f:
                f.write(STUB)
            env = {"PATH": os.environ.get("PATH", "")}
            seen = {}
            for mode in ("ask", "refuse", "fail", "ran"):
                r = drive([sys.executable, stub, mode], env, os.fsencode(d), 30)
                self.assertTrue(r.result_seen, mode)
                self.assertEqual(r.exit_code, 0, r.stderr_tail)
                seen[mode] = run.outcome(r, [], True)["decision"]
            self.assertEqual(seen, {"ask": "asked", "refuse": "refused", "fail": "failed", "ran": "ran"})


if __name__ == "__main__":
    unittest.main()
