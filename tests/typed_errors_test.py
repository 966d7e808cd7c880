#!/usr/bin/env python3
"""Checks tests/typed_errors.py: what it finds, what it exempts, and that each finding
names its file and line. Run by `.ci/run`'s layering phase; stdlib only."""
from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import typed_errors  # noqa: E402

CODE = """\
fn a() -> Result<Vec<u8>, String> { todo!() }
fn b() -> std::io::Result<String> { todo!() }
fn c() -> Result<BTreeMap<String, String>, MyError> { todo!() }
type D = BoxFuture<'static, Result<Value, String>>;
fn e(
    x: u8,
) -> Result<
    (String, u16),
    std::string::String,
> {
    todo!()
}
// fn commented() -> Result<(), String>
const S: &str = "Result<(), String>";
fn f() -> MyResult<(), String> { todo!() }
fn g() -> Result<impl Fn() -> u8, String> { todo!() }
#[cfg(test)]
fn only_in_tests() -> Result<(), String> { Ok(()) }
#[cfg(test)]
mod tests {
    fn t() -> Result<(), String> { Ok(()) }
}
fn h() -> Result<(), String> { Ok(()) }
"""


class TypedErrors(unittest.TestCase):
    def test_finds_string_errors_with_their_lines(self):
        lines = [line for line, _ in typed_errors.findings(CODE)]
        self.assertEqual(lines, [1, 4, 7, 16, 23])

    def test_shows_the_type_as_written_on_one_line(self):
        shown = dict(typed_errors.findings(CODE))
        self.assertEqual(shown[7], "Result<(String, u16), std::string::String,>")
        self.assertEqual(shown[4], "Result<Value, String>")

    def test_an_expression_comparison_is_not_a_type(self):
        self.assertEqual(typed_errors.findings("fn x() { if Result < 3 { y(a, String) } }\n"), [])

    def test_message_names_file_and_line(self):
        with tempfile.NamedTemporaryFile("w", suffix=".rs", delete=False) as f:
            f.write("fn ok() {}\nfn bad() -> Result<(), String> { Ok(()) }\n")
        try:
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                code = typed_errors.main([f.name])
            rel = os.path.relpath(f.name, typed_errors.ROOT)
            self.assertEqual(code, 1)
            self.assertIn(f"typed-errors: {rel}:2: `Result<(), String>`", out.getvalue())
        finally:
            os.unlink(f.name)

    def test_a_clean_file_passes(self):
        with tempfile.NamedTemporaryFile("w", suffix=".rs", delete=False) as f:
            f.write("fn ok() -> Result<(), MyError> { Ok(()) }\n")
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                self.assertEqual(typed_errors.main([f.name]), 0)
        finally:
            os.unlink(f.name)


if __name__ == "__main__":
    unittest.main()
