#!/usr/bin/env python3
"""Import cycles between sibling modules of a Rust crate (default: core/engine/src).

Reads every .rs file under the crate's src, collects the module paths it names
(`use crate::a::b`, `use super::{x, y}`, inline `crate::x::` and `super::x::` paths),
and turns each reference from module A to module B into an edge between the two
siblings under their closest common parent (`session::actor` -> `session::control`
stays inside `session`; `tools::grep` -> `permissions::rules` is `tools` -> `permissions`).
Prints every strongly connected component with more than one module, per parent.

Fails (exit 1) on any cycle that is not one of the KNOWN ones below, and on a known one
that gained a module; runs in `.ci/run`'s layering phase. A known cycle that shrank or
disappeared is reported so the entry can be tightened: the list only ever gets shorter.
Test code (every `#[cfg(test)]` item) is skipped: a test importing a sibling is not a
dependency of the module.

Usage: python3 tests/module_cycles.py [path/to/crate/src]
(without a path: every crate of the workspace, from `cargo metadata`)
"""

import json
import os
import re
import subprocess
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rust_source import strip_comments_and_strings, strip_test_items  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def module_of(src, path):
    """The module path (tuple) of a file: lib.rs is (), a/mod.rs and a.rs are ('a',)."""
    rel = os.path.relpath(path, src)[: -len(".rs")].split(os.sep)
    if rel[-1] in ("mod", "lib", "main"):
        rel = rel[:-1]
    return tuple(rel)


def expand_use_tree(tree):
    """`a::{b, c::{d, e}}` -> ['a::b', 'a::c::d', 'a::c::e']."""
    tree = re.sub(r"\s+", "", tree)
    m = re.match(r"^(.*?)\{(.*)\}$", tree)
    if not m:
        return [re.sub(r"as\w+$", "", tree.split(" as ")[0])]
    prefix, inner = m.group(1), m.group(2)
    parts, depth, cur = [], 0, ""
    for ch in inner:
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
            continue
        depth += {"{": 1, "}": -1}.get(ch, 0)
        cur += ch
    parts.append(cur)
    out = []
    for p in parts:
        if p:
            out.extend(prefix + q for q in expand_use_tree(p))
    # `use a::{self, b}` names `a` itself
    out = [re.sub(r"::self$", "", q) for q in out]
    return out


def resolve(path, here, modules):
    """The longest known module a path (`crate::a::b::Item`, `super::x`) names, or None."""
    segs = [s for s in path.split("::") if s]
    if not segs:
        return None
    if segs[0] == "crate":
        base, segs = [], segs[1:]
    elif segs[0] in ("super", "self"):
        base = list(here)
        while segs and segs[0] in ("super", "self"):
            if segs[0] == "super":
                if not base:
                    return None
                base.pop()
            segs = segs[1:]
    else:
        return None
    best = tuple(base) if tuple(base) in modules else None
    cur = list(base)
    for s in segs:
        cur.append(re.sub(r"\W.*$", "", s))
        if tuple(cur) in modules:
            best = tuple(cur)
        else:
            break
    return best


def sibling_edge(a, b):
    """The pair of siblings under the closest common parent of a and b, or None."""
    k = 0
    while k < len(a) and k < len(b) and a[k] == b[k]:
        k += 1
    if k == len(a) or k == len(b):
        return None  # one contains the other: a parent and its own child, not siblings
    return a[:k], a[k], b[k]


def sccs(nodes, edges):
    """Tarjan's strongly connected components."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


# Cycles allowed for now, by crate and parent module: {"core/engine": {"session": {...}}}.
# Empty since issue 19 removed the last ones; an entry here is a debt with its members
# listed, and it may only shrink.
KNOWN: dict[str, dict[str, set[str]]] = {}

def workspace_crates():
    """Every workspace member's folder, relative to the root (from `cargo metadata`)."""
    meta = json.loads(subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps"],
        cwd=ROOT, check=True, capture_output=True, text=True).stdout)
    return sorted(os.path.relpath(os.path.dirname(p["manifest_path"]), ROOT)
                  for p in meta["packages"])


def main():
    if len(sys.argv) > 1:
        return check(sys.argv[1], {})
    crates = workspace_crates()
    status = max(check(os.path.join(ROOT, c, "src"), KNOWN.get(c, {})) for c in crates)
    print(f"module cycles: {len(crates)} crates checked")
    return status


def check(src, known):
    """Prints the cycles among `src`'s sibling modules; 1 when one is not in `known`."""
    files = {}
    for d, _, names in os.walk(src):
        for name in names:
            if name.endswith(".rs"):
                p = os.path.join(d, name)
                files[module_of(src, p)] = p
    modules = set(files)
    # parent -> child -> set of children, with one example reference per edge
    graph = defaultdict(lambda: defaultdict(set))
    example = {}
    for here, path in sorted(files.items()):
        with open(path, encoding="utf-8") as f:
            text = strip_test_items(strip_comments_and_strings(f.read()))
        paths = []
        for m in re.finditer(r"\buse\s+([^;]+);", text):
            paths.extend(expand_use_tree(m.group(1)))
        paths.extend(m.group(0) for m in re.finditer(r"\b(?:crate|super|self)(?:::\w+)+", text))
        for p in paths:
            target = resolve(p, here, modules)
            if target is None or target == here:
                continue
            e = sibling_edge(here, target)
            if e is None:
                continue
            parent, a, b = e
            graph[parent][a].add(b)
            example.setdefault((parent, a, b), ("::".join(here) or "crate", p))
    found, new_cycles = 0, 0
    seen_known = set()
    for parent in sorted(graph):
        edges = graph[parent]
        nodes = set(edges) | {b for bs in edges.values() for b in bs}
        for comp in sccs(nodes, edges):
            if len(comp) < 2:
                continue
            found += 1
            scope = "::".join(parent) or "crate"
            allowed = known.get(scope, set())
            if set(comp) <= allowed:
                seen_known.add(scope)
                tag = "known" if set(comp) == allowed else "known, now smaller: tighten KNOWN"
            else:
                new_cycles += 1
                tag = f"NEW: {sorted(set(comp) - allowed)} joined" if allowed else "NEW"
            print(f"cycle in {scope} ({tag}): {{{', '.join(comp)}}}")
            for a in comp:
                for b in sorted(edges.get(a, ())):
                    if b in comp:
                        at, p = example[(parent, a, b)]
                        print(f"  {a} -> {b}    (e.g. {at}: {p})")
    for scope in sorted(set(known) - seen_known):
        print(f"known cycle in {scope} is gone: remove it from KNOWN")
    print(f"{found} cycle(s) among sibling modules of {os.path.relpath(src, ROOT)}, {new_cycles} new")
    return 1 if new_cycles else 0


if __name__ == "__main__":
    sys.exit(main())
