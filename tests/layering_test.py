#!/usr/bin/env python3
"""Checks the dialect part of tests/layering.py: which code counts as testing the dialect,
what it does not read, and that each finding names its file and line. Run by `.ci/run`'s
layering phase; stdlib only."""
from __future__ import annotations

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import layering  # noqa: E402

CODE = """\
fn a(core: &SessionCore) {
    if core.services.qoder() {}
    if ctx.core.services.legacy_events ( ) {}
    let x = core.services.opts.legacy_events.unwrap_or(true);
    let q = core.services.opts.dialect == Dialect::Qoder;
    let c = services
        .opts
        .dialect;
    if d.dialect != options::Dialect::Claude {}
}
// services.qoder() in a comment
const S: &str = "legacy_events()";
#[cfg(test)]
mod tests {
    fn t() { let q = services.qoder(); }
}
"""

BY_NAME = """\
fn fine(core: &SessionCore) {
    let d = core.services.dialect();
    if d.reports_tool_progress() && d == Dialect::qoder_sdk() {}
    let qoder = d.default_model_entry();
}
"""


class DialectTests(unittest.TestCase):
    def test_finds_the_branches_with_their_lines(self):
        found = layering.dialect_tests(CODE)
        self.assertEqual([line for line, _ in found], [2, 3, 4, 5, 5, 7, 9, 9])
        self.assertEqual(found[1][1], "legacy_events")
        self.assertEqual(found[5][1], "opts .dialect")

    def test_asking_the_dialect_by_name_is_not_a_branch(self):
        self.assertEqual(layering.dialect_tests(BY_NAME), [])

    def test_comments_strings_and_tests_are_not_read(self):
        lines = {line for line, _ in layering.dialect_tests(CODE)}
        self.assertFalse(lines & {11, 12, 15}, lines)

    def test_message_names_file_and_line(self):
        with tempfile.TemporaryDirectory() as folder:
            with open(os.path.join(folder, "turn.rs"), "w") as f:
                f.write("fn ok() {}\nfn bad(s: &S) -> bool { s.qoder() }\n")
            with open(os.path.join(folder, "notes.md"), "w") as f:
                f.write("s.qoder()\n")
            problems = layering.dialect_problems([folder])
        rel = os.path.relpath(os.path.join(folder, "turn.rs"), layering.ROOT)
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith(f"{rel}:2: `qoder()` tests the dialect"),
                        problems[0])

    def test_the_engine_turn_and_control_are_dialect_free(self):
        self.assertEqual(layering.dialect_problems(layering.DIALECT_FREE), [])


def package(name: str, *deps: str, dev: tuple[str, ...] = ()) -> dict:
    return {"name": name,
            "dependencies": [{"name": d, "kind": None} for d in deps]
            + [{"name": d, "kind": "dev"} for d in dev]}


class CrateTests(unittest.TestCase):
    def test_every_crate_needs_an_entry(self):
        problems = layering.crate_problems([package("dcl-newcrate", "dcl-protocol")])
        self.assertEqual(len(problems), 1)
        self.assertIn("dcl-newcrate has no entry in ALLOWED", problems[0])

    def test_a_crate_reaching_up_is_named_and_its_twin_passes(self):
        self.assertEqual(layering.crate_problems([package("dcl-model", "dcl-protocol")]), [])
        problems = layering.crate_problems([package("dcl-model", "dcl-protocol", "dcl-engine")])
        self.assertEqual(len(problems), 1)
        self.assertIn("dcl-model depends on ['dcl-engine']", problems[0])

    def test_dev_dependencies_are_not_layering(self):
        self.assertEqual(layering.crate_problems(
            [package("dcl-model", "dcl-protocol", dev=("dcl-test-support",))]), [])


if __name__ == "__main__":
    unittest.main()
