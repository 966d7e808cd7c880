"""dcl acp driven by the Python ACP client (PyPI `agent-client-protocol`, pinned in
requirements.txt): the same scenarios as the Rust and TypeScript clients, so independent
client implementations agree. Run: `.venv/bin/python -m unittest test_acp` with DCL_BIN
(default: $CARGO_TARGET_DIR/debug/dcl, else ../../../target/debug/dcl)."""
from __future__ import annotations

import asyncio
import os
import tempfile
import unittest
from pathlib import Path

import acp
from acp import schema

HERE = Path(__file__).resolve().parent
DCL = os.environ.get("DCL_BIN") or str(
    Path(os.environ.get("CARGO_TARGET_DIR", HERE / "../../../target")) / "debug/dcl")


class Recorder:
    """The client side: records updates, answers permission requests with `choice`."""

    def __init__(self, choice: str | None):
        self.choice = choice
        self.updates: list[tuple[str, object]] = []
        self.permissions: list[object] = []
        self.buffers = {}
        self.writes = []

    async def session_update(self, session_id, update, **kwargs):
        self.updates.append((session_id, update))

    async def request_permission(self, session_id, tool_call, options, **kwargs):
        self.permissions.append(tool_call)
        if self.choice is None:
            return schema.RequestPermissionResponse(outcome=schema.DeniedOutcome(outcome="cancelled"))
        return schema.RequestPermissionResponse(
            outcome=schema.AllowedOutcome(optionId=self.choice, outcome="selected"))

    # The editor's buffers (fs/read_text_file answers from them) and its writes.
    buffers: dict[str, str]
    writes: list[tuple[str, str]]

    async def read_text_file(self, session_id, path, line=None, limit=None, **kwargs):
        if path not in self.buffers:
            raise acp.RequestError(-32002, "Resource not found", {"uri": path})
        return schema.ReadTextFileResponse(content=self.buffers[path])

    async def write_text_file(self, session_id, path, content, **kwargs):
        self.writes.append((path, content))
        self.buffers[path] = content
        return schema.WriteTextFileResponse()

    def kinds(self, sid):
        return [u.session_update for s, u in self.updates if s == sid]

    def of(self, sid, kind):
        return [u for s, u in self.updates if s == sid and u.session_update == kind]


async def run(extra, choice, body):
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryDirectory() as cwd:
        env = dict(os.environ, HOME=home, DCL_CONFIG_DIR=os.path.join(home, ".dcl"))
        rec = Recorder(choice)
        async with acp.spawn_agent_process(
                rec, DCL, "acp", "--model", "mock-model", *extra, env=env, cwd=cwd) as (conn, proc):
            await asyncio.wait_for(body(conn, cwd, rec), 60)


def text_of(chunks):
    return "".join(c.content.text for c in chunks)


class DclAcp(unittest.IsolatedAsyncioTestCase):
    async def test_plain_prompt(self):
        async def body(conn, cwd, rec):
            init = await conn.initialize(protocol_version=acp.PROTOCOL_VERSION)
            self.assertEqual(init.agent_info.name, "dcl")
            self.assertTrue(init.agent_capabilities.load_session)
            s = await conn.new_session(cwd=cwd, mcp_servers=[])
            r = await conn.prompt(session_id=s.session_id, prompt=[acp.text_block("hello")])
            self.assertEqual(r.stop_reason, "end_turn")
            self.assertEqual(text_of(rec.of(s.session_id, "agent_message_chunk")),
                             "Hello from the fake model.")
        await run([], None, body)

    async def test_allowed_and_rejected(self):
        for choice, made in (("allow_once", True), ("reject_once", False)):
            async def body(conn, cwd, rec):
                await conn.initialize(protocol_version=acp.PROTOCOL_VERSION)
                s = await conn.new_session(cwd=cwd, mcp_servers=[])
                r = await conn.prompt(session_id=s.session_id, prompt=[acp.text_block("FAKE_TOUCH")])
                self.assertEqual(r.stop_reason, "end_turn")
                self.assertEqual(len(rec.permissions), 1)
                update = rec.of(s.session_id, "tool_call_update")[-1]
                self.assertEqual(update.status, "completed" if made else "failed")
                self.assertEqual((Path(cwd) / "made.txt").exists(), made)
            await run([], choice, body)

    async def test_cancel_mid_tool(self):
        async def body(conn, cwd, rec):
            await conn.initialize(protocol_version=acp.PROTOCOL_VERSION)
            s = await conn.new_session(cwd=cwd, mcp_servers=[])
            turn = asyncio.create_task(conn.prompt(session_id=s.session_id, prompt=[
                acp.text_block('FAKE_TOOL Bash {"command": "sleep 30 && touch late.txt"}')]))
            while "tool_call" not in rec.kinds(s.session_id):
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.3)
            await conn.cancel(session_id=s.session_id)
            self.assertEqual((await turn).stop_reason, "cancelled")
            self.assertFalse((Path(cwd) / "late.txt").exists())
        await run(["--permission-mode", "bypassPermissions"], None, body)

    async def test_two_sessions_and_load(self):
        async def body(conn, cwd, rec):
            await conn.initialize(protocol_version=acp.PROTOCOL_VERSION)
            a = (await conn.new_session(cwd=cwd, mcp_servers=[])).session_id
            b = (await conn.new_session(cwd=cwd, mcp_servers=[])).session_id
            ra, rb = await asyncio.gather(
                conn.prompt(session_id=a, prompt=[acp.text_block("FAKE_THINK")]),
                conn.prompt(session_id=b, prompt=[acp.text_block("hello")]))
            self.assertEqual((ra.stop_reason, rb.stop_reason), ("end_turn", "end_turn"))
            self.assertIn("agent_thought_chunk", rec.kinds(a))
            self.assertNotIn("agent_thought_chunk", rec.kinds(b))
            await conn.close_session(session_id=b)
            before = len(rec.of(b, "user_message_chunk"))
            await conn.load_session(cwd=cwd, session_id=b, mcp_servers=[])
            replayed = rec.of(b, "user_message_chunk")[before:]
            self.assertEqual(text_of(replayed), "hello")
        await run([], None, body)

    async def test_fork_copies_the_conversation(self):
        async def body(conn, cwd, rec):
            init = await conn.initialize(protocol_version=acp.PROTOCOL_VERSION)
            self.assertIsNotNone(init.agent_capabilities.session_capabilities.fork)
            src = (await conn.new_session(cwd=cwd, mcp_servers=[])).session_id
            await conn.prompt(session_id=src, prompt=[acp.text_block("remember quince")])
            fork = (await conn.fork_session(cwd=cwd, session_id=src, mcp_servers=[])).session_id
            self.assertNotEqual(fork, src)
            # The mock's FAKE_HISTORY answer lists the prompts the model saw.
            await conn.prompt(session_id=fork, prompt=[acp.text_block("FAKE_HISTORY in the fork")])
            self.assertIn("remember quince", text_of(rec.of(fork, "agent_message_chunk")))
            before = len(rec.of(src, "agent_message_chunk"))
            await conn.prompt(session_id=src, prompt=[acp.text_block("FAKE_HISTORY in the source")])
            answer = text_of(rec.of(src, "agent_message_chunk")[before:])
            self.assertIn("remember quince", answer)
            self.assertNotIn("in the fork", answer)
        await run([], None, body)

    async def test_unknown_session(self):
        async def body(conn, cwd, rec):
            await conn.initialize(protocol_version=acp.PROTOCOL_VERSION)
            with self.assertRaises(acp.RequestError) as caught:
                await conn.prompt(session_id="nope", prompt=[acp.text_block("hi")])
            self.assertEqual(caught.exception.code, -32002)
        await run([], None, body)

    async def test_client_fs_used_when_offered(self):
        async def body(conn, cwd, rec):
            caps = schema.ClientCapabilities(
                fs=schema.FileSystemCapabilities(readTextFile=True, writeTextFile=True))
            await conn.initialize(protocol_version=acp.PROTOCOL_VERSION, client_capabilities=caps)
            (Path(cwd) / "a.txt").write_text("saved on disk\n")
            rec.buffers[str(Path(cwd) / "a.txt")] = "unsaved in the editor\n"
            s = await conn.new_session(cwd=cwd, mcp_servers=[])
            await conn.prompt(session_id=s.session_id, prompt=[
                acp.text_block('FAKE_TOOL Read {"file_path": "a.txt"}')])
            done = rec.of(s.session_id, "tool_call_update")[-1]
            self.assertIn("unsaved in the editor", done.model_dump_json())
            self.assertNotIn("saved on disk", done.model_dump_json())
            await conn.prompt(session_id=s.session_id, prompt=[
                acp.text_block('FAKE_TOOL Write {"file_path": "new.txt", "content": "hi"}')])
            self.assertEqual(rec.writes, [(str(Path(cwd) / "new.txt"), "hi")])
            self.assertFalse((Path(cwd) / "new.txt").exists())
        await run(["--permission-mode", "bypassPermissions"], None, body)

    async def test_project_mcp_server_rejected_is_not_started(self):
        script = HERE / "../../../acp/tests/fixtures/echo_mcp.py"

        async def body(conn, cwd, rec):
            await conn.initialize(protocol_version=acp.PROTOCOL_VERSION)
            (Path(cwd) / ".mcp.json").write_text(
                '{"mcpServers": {"demo": {"command": "python3", "args": ["%s"]}}}' % script)
            s = await conn.new_session(cwd=cwd, mcp_servers=[])
            await conn.prompt(session_id=s.session_id, prompt=[
                acp.text_block('FAKE_TOOL mcp__demo__echo {"text": "ping"}')])
            self.assertEqual(len(rec.permissions), 1)
            self.assertIn("demo", rec.permissions[0].title)
            self.assertEqual(rec.of(s.session_id, "tool_call_update")[-1].status, "failed")
        await run(["--permission-mode", "bypassPermissions"], "reject_once", body)


if __name__ == "__main__":
    unittest.main()
