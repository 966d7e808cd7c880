"""Reading Rust source for the layering checks (tests/typed_errors.py,
tests/module_cycles.py, tests/hook_names.py, tests/wire_in_emit.py) and the macOS link
stubs (scripts/macos_stubs.py): comments, literals
and test-only items blanked to spaces of the same length, newlines kept, so what is left
is code and line numbers still hold; and the string literals of code, for the checks
that look for a spelling. A small lexer rather than a Rust parser: the checks only need
to know what is code."""
from __future__ import annotations

import re


def blank(text: str, start: int, end: int) -> str:
    """text with [start, end) replaced by spaces, newlines kept so line numbers hold."""
    return text[:start] + re.sub(r"[^\n]", " ", text[start:end]) + text[end:]


def comment_end(text: str, i: int) -> int | None:
    """Where the comment starting at `i` ends (`//` to the line's end, `/* */` nested as
    Rust nests them); None when no comment starts there."""
    if text.startswith("//", i):
        end = text.find("\n", i)
        return len(text) if end < 0 else end
    if not text.startswith("/*", i):
        return None
    depth, j = 1, i + 2
    while j < len(text) and depth:
        if text.startswith("/*", j):
            depth, j = depth + 1, j + 2
        elif text.startswith("*/", j):
            depth, j = depth - 1, j + 2
        else:
            j += 1
    return j


def strip_comments(text: str) -> str:
    """Blanks comments only (same length, newlines kept): literals stay readable."""
    return strip_comments_and_strings(text, literals=False)


def strip_comments_and_strings(text: str, literals: bool = True) -> str:
    """Blanks comments and string/char literals (same length, newlines kept); with
    `literals=False`, comments only."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        j = i
        if (end := comment_end(text, i)) is not None:
            j = end
        elif c in "rb" and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")) and (
            m := re.match(r'(?:br|r|b)(#*)"', text[i:])
        ):
            hashes = m.group(1)
            if hashes or m.group(0).startswith(("r", "br")):
                end = text.find('"' + hashes, i + len(m.group(0)))
                j = n if end < 0 else end + 1 + len(hashes)
            else:  # b"..." with escapes
                j = i + 2
                while j < n and text[j] != '"':
                    j += 2 if text[j] == "\\" else 1
                j += 1
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j += 1
        elif c == "'" and (m := re.match(r"'(\\u\{[0-9a-fA-F]+\}|\\x[0-9a-fA-F]{2}|\\.|[^\\'])'", text[i:])):
            j = i + len(m.group(0))
        if j == i:
            out.append(c)
            i += 1
        elif literals or comment_end(text, i) is not None:
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        else:
            out.append(text[i:j])
            i = j
    return "".join(out)


def strip_test_items(text: str) -> str:
    """Blanks every item marked `#[cfg(test)]`: up to its `;` or through its brace block."""
    pos = 0
    while m := re.compile(r"#\[cfg\(test\)\]").search(text, pos):
        i, depth = m.end(), 0
        while i < len(text):
            ch = text[i]
            if ch == ";" and depth == 0:
                i += 1
                break
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    i += 1
                    break
            i += 1
        text = blank(text, m.start(), i)
        pos = m.start() + 1
    return text


LITERAL = re.compile(r'(?:b|r|br)?(#*)"')


def string_literals(text: str):
    """(offset, contents) of each string literal of code, comments and tests left out."""
    text = strip_test_items(text)
    code = strip_comments_and_strings(text)
    i, n = 0, len(text)
    while i < n:
        if code[i] == text[i]:
            i += 1
            continue
        # A blanked stretch: a comment, a char or a string literal. A comment is skipped
        # to its end: its spaces are the same in both texts, and a quote after one is
        # still comment.
        if (end := comment_end(text, i)) is not None:
            i = end
            continue
        m = LITERAL.match(text, i)
        if m:
            hashes = m.group(1)
            start = m.end()
            if hashes or m.group(0).startswith(("r", "br")):
                end = text.find('"' + hashes, start)
                end = n if end < 0 else end
                yield i, text[start:end]
                i = end + 1 + len(hashes)
                continue
            end = start
            while end < n and text[end] != '"':
                end += 2 if text[end] == "\\" else 1
            yield i, text[start:end]
            i = end + 1
            continue
        # A char literal.
        while i < n and code[i] != text[i]:
            i += 1
