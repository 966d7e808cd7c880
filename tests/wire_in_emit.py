#!/usr/bin/env python3
"""The engine builds stream-json lines in one module: core/engine/src/session/emit/ (issue 39,
"stream-json becomes one projection"). Everywhere else the session says what happened (an
`Event`, an emitter method) and reads the host's lines; it never constructs one, so a line's
shape cannot drift between two places that build it.

Scans every .rs file under core/engine/src except session/emit/ and test code (`tests/`
directories, `#[cfg(test)]` items; comments are not read) for:
- `Message::Variant(…)` built, not matched: a match arm, an `if let`/`let … else` pattern or
  a `matches!` reads a host's line and passes;
- a struct literal of a line's type (`ResultMessage { … }`, `ControlResponseEnvelope { … }`);
- a string literal naming a control line's `type` (`"control_response"`), as JSON built by
  hand carries it.
Exit 1 with file:line for each finding. Run by `.ci/run`'s layering phase; self-test:
tests/wire_in_emit_test.py.

Usage: python3 tests/wire_in_emit.py [root]
"""
from __future__ import annotations

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rust_source import string_literals, strip_comments_and_strings, strip_test_items  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENGINE_SRC = os.path.join("core", "engine", "src")
EMIT = os.path.join(ENGINE_SRC, "session", "emit")

VARIANT = re.compile(r"\bMessage\s*::\s*([A-Z]\w*)\s*\(")
# The types a `Message` variant carries (dcl_protocol), each a whole line once wrapped.
LINE_TYPE = re.compile(
    r"\b(UserMessage|AssistantMessage|SystemMessage|ResultMessage|StreamEventMessage"
    r"|ControlRequestEnvelope|ControlResponseEnvelope|ControlCancelRequest"
    r"|PromptSuggestionMessage|ToolProgressMessage|TranscriptMirrorMessage"
    r"|ConversationResetMessage|Legacy\w+Message)\s*\{")
CONTROL_TYPE = re.compile(
    r'^control_(?:request|response|cancel_request)$|"control_(?:request|response|cancel_request)"')
# What a type name before `{` can be when it is not a value being built.
NOT_A_LITERAL = re.compile(r"(?:->|\bimpl|\bfor|\bstruct|\benum|\btrait)\s*$")
OPENS, CLOSES = "([{", ")]}"


def closing(code: str, i: int) -> int:
    """The index just past the bracket that closes the one at `i`."""
    depth = 0
    while i < len(code):
        if code[i] in OPENS:
            depth += 1
        elif code[i] in CLOSES:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return i


def in_matches(code: str, start: int) -> bool:
    """Whether `start` is inside the parentheses of a `matches!(…)`."""
    depth = 0
    for i in range(start - 1, -1, -1):
        c = code[i]
        if c in CLOSES:
            depth += 1
        elif c in OPENS:
            if depth:
                depth -= 1
            elif c == "(" and re.search(r"\bmatches!\s*$", code[:i]):
                return True
    return False


def is_pattern(code: str, start: int, open_at: int) -> bool:
    """Whether the bracketed term starting at `start` (its bracket at `open_at`) is matched
    against, not built: followed (past the patterns it nests in) by `=>`, `|`, a guard or
    the `=` of a `let`, or inside `matches!`."""
    i = closing(code, open_at)
    while i < len(code) and (code[i].isspace() or code[i] == ")"):
        i += 1
    rest = code[i:i + 3]
    if rest.startswith("=>") or (rest.startswith("|") and not rest.startswith("||")):
        return True
    if re.match(r"if\b", rest) or (rest.startswith("=") and not rest.startswith("==")):
        return True
    return in_matches(code, start)


def line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def file_findings(text: str) -> list[tuple[int, str]]:
    """(line, what) for each wire line the non-test code of `text` builds."""
    code = strip_test_items(strip_comments_and_strings(text))
    out = []
    for m in VARIANT.finditer(code):
        if not is_pattern(code, m.start(), m.end() - 1):
            out.append((line_of(code, m.start()), f"Message::{m.group(1)}(…)"))
    for m in LINE_TYPE.finditer(code):
        path = re.search(r"(\w+)\s*::\s*$", code[:m.start()])
        if path and path.group(1) != "dcl_protocol":
            continue  # another enum's variant of that name (`ItemBody::UserMessage`)
        if NOT_A_LITERAL.search(code[:m.start()]) or is_pattern(code, m.start(), m.end() - 1):
            continue
        out.append((line_of(code, m.start()), f"{m.group(1)} {{ … }}"))
    for offset, literal in string_literals(text):
        if CONTROL_TYPE.search(literal):
            out.append((line_of(text, offset), f'"{literal}"'))
    return sorted(out)


def findings(root: str) -> list[str]:
    out = []
    src = os.path.join(root, ENGINE_SRC)
    emit = os.path.join(root, EMIT)
    for dirpath, dirnames, filenames in os.walk(src):
        dirnames[:] = sorted(d for d in dirnames
                             if d not in ("tests", "benches")
                             and os.path.join(dirpath, d) != emit)
        for name in sorted(filenames):
            if not name.endswith(".rs"):
                continue
            path = os.path.join(dirpath, name)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            rel = os.path.relpath(path, root)
            out.extend(f"{rel}:{line}: `{what}` builds a stream-json line; emit an Event or "
                       f"call an emitter method, and build the line in {EMIT}/"
                       for line, what in file_findings(text))
    return out


def main() -> int:
    root = sys.argv[1] if len(sys.argv) > 1 else ROOT
    found = findings(root)
    for f in found:
        print(f"wire-in-emit: {f}")
    if found:
        print(f"wire-in-emit: {len(found)} stream-json line(s) built outside {EMIT}/")
        return 1
    print(f"wire-in-emit: stream-json lines are built in {EMIT}/ only")
    return 0


if __name__ == "__main__":
    sys.exit(main())
