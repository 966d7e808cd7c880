#!/usr/bin/env python3
"""Checks tests/hook_names.py on a scratch tree: what it finds, what it exempts. Run by
`.ci/run`'s layering phase; stdlib only."""
from __future__ import annotations

import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hook_names  # noqa: E402

ENGINE = """\
//! A doc line naming `"PreToolUse"` is a comment.
fn fire() {
    run("PreToolUse");
    let prose = "a Stop hook stopped the turn";
    let json = r#"{"hooks": {"Stop": []}}"#;
    let raw = r#"SessionEnd"#;
    let c = '"'; let after_char = "Notification";
}
#[cfg(test)]
mod tests {
    fn t() { run("Stop"); }
}
"""


class HookNames(unittest.TestCase):
    def tree(self, files: dict[str, str]) -> str:
        root = tempfile.mkdtemp(prefix="hook-names-")
        self.addCleanup(lambda: __import__("shutil").rmtree(root))
        events = [{"name": n} for n in ("PreToolUse", "Stop", "SessionEnd", "Notification")]
        files = {"core/events/schema/hook-events.json": json.dumps(events), **files}
        for rel, text in files.items():
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        return root

    def test_finds_names_in_code_only(self) -> None:
        root = self.tree({"core/engine/src/turn.rs": ENGINE})
        found = hook_names.findings(root)
        self.assertEqual([f.split(": ")[0] for f in found], [
            "core/engine/src/turn.rs:3",
            "core/engine/src/turn.rs:6",
            "core/engine/src/turn.rs:7",
        ], found)
        self.assertIn("'PreToolUse'", found[0])

    def test_the_list_module_and_test_code_are_exempt(self) -> None:
        root = self.tree({
            "core/events/src/hooks.rs": 'hook_events! { PreToolUse = "PreToolUse"; }\n',
            "core/engine/tests/all.rs": 'fn t() { run("Stop"); }\n',
            "core/engine/src/clean.rs": "fn fire() { fire(&PreToolUse { }); }\n",
        })
        self.assertEqual(hook_names.findings(root), [])


if __name__ == "__main__":
    unittest.main()
