#!/usr/bin/env python3
"""A hook event added to the engine's one list reaches every binding without hand edits.

The list is `dcl_events::HookEventName` (core/events/src/hooks.rs). This test adds an event
to that list in a scratch copy of the dcl-events crate, builds the crate's
`export-hook-events` there (the command that writes core/events/schema/hook-events.json),
and from its output derives the protocol schema's `HookEventName` vocabulary (schemars takes
it from the same Rust enum). It then runs scripts/gen_types.py on both into a scratch tree and
finds the event in Node's and Java's hook types and in Python's protocol types (Node's
protocol types come from the same schema through node/scripts/gen-types.mjs, checked by
node/ci.sh). The committed files stay as they are; Rust tests keep the committed exports
equal to the list. Needs cargo (offline: the workspace's dependencies are already fetched);
run by `.ci/run`'s gen-types phase.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EVENTS_CRATE = ROOT / "core/events"
PROTOCOL_SCHEMA = ROOT / "core/protocol/schema/dcl-protocol.schema.json"
NEW = "ZzScratchEvent"
DESCRIPTION = "When a scratch copy says so"


def scratch_workspace(root: Path) -> None:
    """A workspace of the dcl-events crate alone, with the real one's package settings,
    dependency versions (its Cargo.lock), profiles and lints, so the build reuses what the
    real workspace compiled."""
    manifest = (ROOT / "Cargo.toml").read_text()
    head, sep, rest = manifest.partition("[workspace.package]")
    if not sep:
        raise RuntimeError("Cargo.toml has no [workspace.package]")
    # The other crates' path dependencies are not in the scratch copy.
    rest = "\n".join(l for l in rest.splitlines() if "path = " not in l)
    (root / "Cargo.toml").write_text(
        '[workspace]\nresolver = "3"\nmembers = ["events"]\n\n' + sep + rest + "\n")
    shutil.copy(ROOT / "Cargo.lock", root / "Cargo.lock")
    shutil.copytree(EVENTS_CRATE, root / "events", ignore=shutil.ignore_patterns("target"))


def add_event(hooks_rs: Path, fired: bool) -> None:
    """Adds NEW as the last entry of the `hook_events!` list."""
    text = hooks_rs.read_text()
    start = text.index("\nhook_events! {")
    end = text.index("\n}\n", start)
    fired_rs = "Yes" if fired else 'Never("a scratch copy never fires it")'
    line = f'\n    {NEW} = "{NEW}", Matcher::None, {fired_rs}, "{DESCRIPTION}";'
    hooks_rs.write_text(text[:end] + line + text[end:])


def export_hook_events(tmp: Path, fired: bool) -> list[dict]:
    crate = tmp / "rust"
    crate.mkdir()
    scratch_workspace(crate)
    add_event(crate / "events/src/hooks.rs", fired)
    env = dict(os.environ)
    env.setdefault("CARGO_TARGET_DIR", str(ROOT / "target"))
    run = subprocess.run(
        ["cargo", "run", "--offline", "--quiet", "--manifest-path", str(crate / "Cargo.toml"),
         "-p", "dcl-events", "--bin", "export-hook-events"],
        capture_output=True, text=True, env=env)
    if run.returncode != 0:
        raise AssertionError(f"export-hook-events failed:\n{run.stderr}")
    return json.loads(run.stdout)


class HookEventsReachEveryBinding(unittest.TestCase):
    def generate(self, tmp: Path, fired: bool) -> Path:
        events = export_hook_events(tmp, fired)
        self.assertEqual(events[-1]["name"], NEW, "the scratch list exports the new event")
        hooks = tmp / "hook-events.json"
        hooks.write_text(json.dumps(events, indent=2))
        schema = json.loads(PROTOCOL_SCHEMA.read_text())
        vocabulary = schema["$defs"]["HookEventName"]["enum"]
        self.assertEqual(vocabulary, [e["name"] for e in events[:-1]],
                         "the protocol's vocabulary is the list's names")
        vocabulary.append(NEW)
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
            self.assertIn(f'  /** {DESCRIPTION}. */\n  ZZ_SCRATCH_EVENT("{NEW}");', java)
            python = (out / "python/src/dcl/_generated/protocol.py").read_text()
            self.assertIn(f'"{NEW}"]', python)
        for committed in ("core/events/src/hooks.rs",
                          "core/events/schema/hook-events.json",
                          "node/src/generated/hookEvents.ts",
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
