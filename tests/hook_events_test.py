#!/usr/bin/env python3
"""A hook event added to the engine's one list reaches every binding without hand edits.

The list is `dcl_events::HookEventName` (core/events/src/hooks.rs); Rust tests keep its two
exports current: core/events/schema/hook-events.json (names, descriptions, whether dcl fires
each) and the protocol schema's `HookEventName` vocabulary. This test adds an event to
scratch copies of both, runs scripts/gen_types.py on them into a scratch tree, and finds the
event in Node's and Java's hook types and in Python's protocol types (Node's protocol types
come from the same schema through node/scripts/gen-types.mjs, checked by node/ci.sh); the
committed files stay as they are. Stdlib only; run by `.ci/run`'s gen-types phase.
"""
from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOOK_EVENTS = ROOT / "core/events/schema/hook-events.json"
PROTOCOL_SCHEMA = ROOT / "core/protocol/schema/dcl-protocol.schema.json"
NEW = "ZzScratchEvent"


class HookEventsReachEveryBinding(unittest.TestCase):
    def generate(self, tmp: Path, fired: bool) -> Path:
        events = json.loads(HOOK_EVENTS.read_text())
        events.append({"name": NEW, "description": "When a scratch copy says so", "fired": fired})
        hooks = tmp / "hook-events.json"
        hooks.write_text(json.dumps(events, indent=2))
        schema = json.loads(PROTOCOL_SCHEMA.read_text())
        schema["$defs"]["HookEventName"]["enum"].append(NEW)
        protocol = tmp / "dcl-protocol.schema.json"
        protocol.write_text(json.dumps(schema, indent=2))
        out = tmp / "out"
        subprocess.run(
            [sys.executable, str(ROOT / "scripts/gen_types.py"), "--hook-events", str(hooks),
             "--protocol-schema", str(protocol), "--out", str(out)],
            check=True, capture_output=True)
        return out

    def test_a_fired_event_reaches_node_java_and_python(self) -> None:
        # Each assertion names a file the generator writes; none is edited by hand.
        with tempfile.TemporaryDirectory() as t:
            out = self.generate(Path(t), fired=True)
            node = (out / "node/src/generated/hookEvents.ts").read_text()
            self.assertIn(f'  | "{NEW}"', node)
            self.assertIn(f'  "{NEW}",', node)
            java = (out / "java/src/main/java/nexus/io/agent/sdk/hook/HookEvent.java").read_text()
            self.assertIn(f'  /** When a scratch copy says so. */\n  ZZ_SCRATCH_EVENT("{NEW}");', java)
            python = (out / "python/src/dcl/_generated/protocol.py").read_text()
            self.assertIn(f'"{NEW}"]', python)
        for committed in ("node/src/generated/hookEvents.ts",
                          "java/src/main/java/nexus/io/agent/sdk/hook/HookEvent.java",
                          "python/src/dcl/_generated/protocol.py"):
            self.assertNotIn(NEW, (ROOT / committed).read_text(), committed)

    def test_an_event_dcl_never_fires_is_typed_for_node_but_not_offered_in_java(self) -> None:
        with tempfile.TemporaryDirectory() as t:
            out = self.generate(Path(t), fired=False)
            node = (out / "node/src/generated/hookEvents.ts").read_text()
            self.assertIn(f'  | "{NEW}"', node)
            self.assertIn(f"never fires Setup, TeammateIdle, WorktreeCreate, WorktreeRemove, "
                          f"MessageDisplay, PreSkillShellCommand, {NEW}", node)
            java = (out / "java/src/main/java/nexus/io/agent/sdk/hook/HookEvent.java").read_text()
            self.assertNotIn(f'("{NEW}")', java)
            self.assertIn(NEW, java.split("public enum")[0], "named among the unfired")


if __name__ == "__main__":
    unittest.main()
