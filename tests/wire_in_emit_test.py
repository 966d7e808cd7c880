#!/usr/bin/env python3
"""Checks tests/wire_in_emit.py on scratch trees: a file building a line is found, its twin
reading the same lines passes, and session/emit/ and test code are exempt. Run by `.ci/run`'s
layering phase; stdlib only."""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import wire_in_emit  # noqa: E402

# Builds lines: each way the engine used to, one per line from line 3.
ATTACK = """\
fn answer(emitter: &Emitter, request_id: String, response: ControlResponse) {
    let ok = 1;
    emitter.emit(Message::ControlResponse(ControlResponseEnvelope::new(response)));
    emitter.emit(dcl_protocol::Message::User(shown));
    let line = Some(Message::Result(result));
    let r = ResultMessage { subtype: "success".into(), ..base };
    let v = json!({"type": "control_request", "request_id": request_id});
    let raw = r#"{"type":"control_response"}"#;
    out.extend(warnings.into_iter().map(|w| Message::System(system(w))));
}
"""

# The same lines read, not built: patterns, `matches!`, another enum's `UserMessage`,
# prose naming a line type, types in signatures, comments and tests.
TWIN = """\
fn handle(&mut self, message: Message) -> Option<UserMessage> {
    match message {
        Message::User(user) => self.enqueue(user),
        Message::ControlRequest(req) | Message::ControlCancelRequest(req) => self.control(req),
        Message::ControlResponse(resp) if resp.ok() => {}
        Some(Message::KeepAlive(_)) => {}
        _ => {}
    }
    if let Some(Message::Result(r)) = last {}
    let Message::Assistant(a) = line else { return None };
    let text_only = matches!(m, Message::StreamEvent(_) | Message::Text(_));
    let item = ItemBody::UserMessage { content };
    tracing::warn!("control_response for unknown request_id {id:?}; ignored");
    // emitter.emit(Message::User(line)); "control_request"
    None
}
impl From<Foo> for ResultMessage {}
fn result(s: Summary) -> ResultMessage {
    todo!()
}
#[cfg(test)]
mod tests {
    fn t() { emit(Message::User(UserMessage::new(x))); let s = "control_response"; }
}
"""


class WireInEmit(unittest.TestCase):
    def tree(self, files: dict[str, str]) -> str:
        root = tempfile.mkdtemp(prefix="wire-in-emit-")
        self.addCleanup(shutil.rmtree, root)
        for rel, text in files.items():
            path = os.path.join(root, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(text)
        return root

    def test_a_file_building_lines_is_found_line_by_line(self) -> None:
        found = wire_in_emit.file_findings(ATTACK)
        self.assertEqual(sorted({line for line, _ in found}), [3, 4, 5, 6, 7, 8, 9], found)
        self.assertIn((3, "Message::ControlResponse(…)"), found)
        self.assertIn((6, "ResultMessage { … }"), found)
        self.assertIn((7, '"control_request"'), found)

    def test_reading_the_same_lines_passes(self) -> None:
        self.assertEqual(wire_in_emit.file_findings(TWIN), [])

    def test_findings_name_file_and_line_and_emit_is_exempt(self) -> None:
        src = os.path.join("core", "engine", "src")
        root = self.tree({
            os.path.join(src, "session", "turn", "result.rs"): ATTACK,
            os.path.join(src, "session", "actor.rs"): TWIN,
            os.path.join(src, "session", "emit", "control.rs"): ATTACK,
            os.path.join(src, "session", "emit", "sub", "deep.rs"): ATTACK,
            os.path.join(src, "tests", "lines.rs"): ATTACK,
            os.path.join("core", "engine", "tests", "all", "main.rs"): ATTACK,
        })
        found = wire_in_emit.findings(root)
        rel = os.path.join(src, "session", "turn", "result.rs")
        self.assertTrue(found, found)
        self.assertTrue(all(f.startswith(rel + ":") for f in found), found)
        self.assertTrue(found[0].startswith(f"{rel}:3: `Message::ControlResponse(…)`"), found[0])

    def test_the_engine_builds_lines_in_emit_only(self) -> None:
        self.assertEqual(wire_in_emit.findings(wire_in_emit.ROOT), [])


if __name__ == "__main__":
    unittest.main()
