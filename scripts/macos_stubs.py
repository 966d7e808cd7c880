#!/usr/bin/env python3
"""Writes the link-time stubs (.tbd) of the macOS frameworks and libraries dcl links, so the
macOS artifacts link on Linux with cargo-zigbuild.

zig ships a stub of libSystem only; a crate that links `-framework CoreFoundation` (chrono's
time zone, rustls-native-certs for redis over TLS, libgit2's build script) fails with "unable
to find framework". Apple's SDK cannot be installed here (no package registry carries it),
and `-undefined dynamic_lookup` would link anything, misspelt symbols included. A .tbd is
what the SDK itself holds for each framework: the install name dyld loads at run time and
the symbols it exports. This script derives the symbols from the source of the crates in
the target's dependency graph, by construction:

- every `fn` and `static` declared in an `extern` block whose `#[link(name = "X", kind =
  "framework")]` names the framework, or, for a crate that names the framework once on an
  empty block (core-foundation-sys), in every unattributed `extern` block of that crate —
  also where a `macro_rules!` expands to that block, for the names its invocations pass;
- frameworks a build script links (`cargo:rustc-link-lib=framework=X`) get a stub even when
  no Rust code declares a symbol of theirs: the C code that needs it is then reported by
  the linker as an undefined symbol, by name;
- libiconv, which libgit2's C code calls on Apple targets: the four functions of POSIX
  <iconv.h>, under the names Apple's libiconv.2.dylib exports;
- with --go-root, the /usr/lib libraries Go's darwin runtime binds through
  `//go:cgo_import_dynamic` (libresolv), for the Go module's cgo link.

The stubs say the symbols exist; the binary binds them by name to the framework's install
name (two-level namespace), as a binary linked against the real SDK does.

    python3 scripts/macos_stubs.py <out dir> [--target aarch64-apple-darwin] [--go-root <GOROOT>]

prints the directory to pass as `-F` and `-L`. Tests: tests/platforms/macos_stubs_test.py.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

# The project's Rust lexer (comments nested, raw strings, char literals), shared with the
# layering checks.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from rust_source import strip_comments  # noqa: E402

# Frameworks and libraries are loaded from these paths on every macOS release dcl supports.
FRAMEWORK_DIR = "/System/Library/Frameworks"
ICONV = ("libiconv", "/usr/lib/libiconv.2.dylib", ["iconv", "iconv_open", "iconv_close", "iconvctl"])
# Build scripts of the graph may link these; each gets a stub even with no declared symbol.
ALWAYS = ("CoreFoundation", "Security", "SystemConfiguration")

LINK_ATTR = re.compile(r'link\s*\(\s*name\s*=\s*"(?P<name>[A-Za-z0-9_]+)"\s*,\s*kind\s*=\s*"framework"\s*\)')
EXTERN = re.compile(r'(?:unsafe\s+)?extern\s*(?:"(?:C|system)")?\s*\{')
ITEM = re.compile(r"\b(?:fn|static(?:\s+mut)?)\s+([A-Za-z_][A-Za-z0-9_]*)")
BUILD_LINK = re.compile(r"rustc-link-lib=framework=([A-Za-z0-9_]+)")


def block_end(src: str, open_brace: int) -> int:
    depth = 0
    for j in range(open_brace, len(src)):
        if src[j] == "{":
            depth += 1
        elif src[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(src)


def extern_blocks(src: str) -> list[tuple[str | None, str]]:
    """(framework named by the attributes just before the block, or None; the block's body)."""
    blocks = []
    for m in EXTERN.finditer(src):
        # The attributes of this block: the text since the previous item ended.
        start = max(src.rfind(";", 0, m.start()), src.rfind("}", 0, m.start())) + 1
        attrs = LINK_ATTR.findall(src[start : m.start()])
        close = block_end(src, m.end() - 1)
        blocks.append((attrs[-1] if attrs else None, src[m.end() : close]))
    return blocks


MACRO_RULES = re.compile(r"macro_rules!\s*([A-Za-z_][A-Za-z0-9_]*)\s*\{")


def macro_symbols(src: str) -> tuple[dict[str, str], set[str]]:
    """Symbols a `macro_rules!` of this file declares for its invocations: a macro whose
    expansion is an extern block declaring `static $x` / `fn $x`, invoked as `name! { A =>
    kSymbol, ... }` (security-framework-sys declares its key algorithms so). Returns the
    extern blocks' framework attribute per macro (None: the crate's) and the symbols."""
    found: set[str] = set()
    owners: dict[str, str] = {}
    for m in MACRO_RULES.finditer(src):
        body = src[m.end() : block_end(src, m.end() - 1)]
        for framework, block in extern_blocks(body):
            for var in re.findall(r"\b(?:fn|static(?:\s+mut)?)\s+\$([A-Za-z_]\w*)", block):
                # Where $var sits in the rule's pattern: after `=>` or before it.
                after = re.search(r"=>\s*\$" + var + r":ident", body) is not None
                for inv in re.finditer(re.escape(m.group(1)) + r"!\s*[{(\[]", src):
                    args = src[inv.end() : block_end(src, inv.end() - 1) if src[inv.end() - 1] == "{" else len(src)]
                    pairs = re.findall(r"([A-Za-z_]\w*)\s*=>\s*([A-Za-z_]\w*)", args)
                    found.update(b if after else a for a, b in pairs)
                if framework:
                    owners[m.group(1)] = framework
    return owners, found


def crate_symbols(root: Path) -> tuple[dict[str, set[str]], set[str]]:
    """Symbols per framework declared in one crate's sources, and frameworks its build script links."""
    files = [p for p in root.rglob("*.rs") if "target" not in p.parts]
    parsed = []
    crate_framework = None
    for path in files:
        src = strip_comments(path.read_text(errors="replace"))
        blocks = extern_blocks(src)
        owners, macro_found = macro_symbols(src)
        # A macro's own extern block without an attribute belongs to the crate's framework.
        macro_owned = [(next(iter(owners.values()), None), macro_found)] if macro_found else []
        parsed.append((blocks, macro_owned))
        for name, body in blocks:
            if name and not ITEM.search(body):
                crate_framework = name
    symbols: dict[str, set[str]] = {}
    for blocks, macro_owned in parsed:
        for name, body in blocks:
            owner = name or crate_framework
            if owner:
                symbols.setdefault(owner, set()).update(ITEM.findall(body))
        for name, found in macro_owned:
            owner = name or crate_framework
            if owner:
                symbols.setdefault(owner, set()).update(found)
    linked: set[str] = set()
    build = root / "build.rs"
    if build.is_file():
        linked.update(BUILD_LINK.findall(build.read_text(errors="replace")))
    return symbols, linked


def graph_roots(target: str, manifest: Path) -> list[Path]:
    meta = json.loads(
        subprocess.run(
            ["cargo", "metadata", "--format-version", "1", "--locked", "--filter-platform", target,
             "--manifest-path", str(manifest)],
            check=True, capture_output=True, text=True,
        ).stdout
    )
    ids = {node["id"] for node in meta["resolve"]["nodes"]}
    return [Path(p["manifest_path"]).parent for p in meta["packages"] if p["id"] in ids]


def tbd(install_name: str, symbols: set[str]) -> str:
    targets = "[ x86_64-macos, arm64-macos ]"
    lines = [
        "--- !tapi-tbd",
        "tbd-version:     4",
        f"targets:         {targets}",
        f"install-name:    '{install_name}'",
        "current-version: 1",
        "compatibility-version: 1",
    ]
    if symbols:
        lines += [
            "exports:",
            f"  - targets:         {targets}",
            "    symbols:         [ " + ", ".join("_" + s for s in sorted(symbols)) + " ]",
        ]
    lines.append("...")
    return "\n".join(lines) + "\n"


GO_IMPORT = re.compile(r'^//go:cgo_import_dynamic\s+\S+\s+(\S+)\s+"([^"]+)"', re.M)


def go_libraries(goroot: Path) -> dict[str, set[str]]:
    """Libraries Go's own darwin code binds by `//go:cgo_import_dynamic` (libresolv for
    the resolver), which a cgo program's external link then names (`-lresolv`): install
    path -> symbols. libSystem is zig's own; frameworks are the Rust side's business."""
    libs: dict[str, set[str]] = {}
    for path in (goroot / "src").rglob("*darwin*.go"):
        if path.name.endswith("_test.go"):
            continue
        for sym, lib in GO_IMPORT.findall(path.read_text(errors="replace")):
            if lib.startswith("/usr/lib/") and "libSystem" not in lib:
                libs.setdefault(lib, set()).add(sym)
    return libs


def write_stubs(out: Path, frameworks: dict[str, set[str]], libraries: dict[str, set[str]] | None = None) -> None:
    for name, symbols in sorted(frameworks.items()):
        fw = out / f"{name}.framework"
        fw.mkdir(parents=True, exist_ok=True)
        (fw / f"{name}.tbd").write_text(tbd(f"{FRAMEWORK_DIR}/{name}.framework/Versions/A/{name}", symbols))
    lib, install_name, funcs = ICONV
    (out / f"{lib}.tbd").write_text(tbd(install_name, set(funcs) | {"lib" + f for f in funcs}))
    for install_name, symbols in sorted((libraries or {}).items()):
        # /usr/lib/libresolv.9.dylib is what `-lresolv` finds as libresolv.tbd.
        stem = Path(install_name).name.split(".")[0]
        (out / f"{stem}.tbd").write_text(tbd(install_name, symbols))


def collect(roots: list[Path]) -> dict[str, set[str]]:
    frameworks: dict[str, set[str]] = {name: set() for name in ALWAYS}
    for root in roots:
        symbols, linked = crate_symbols(root)
        for name in linked:
            frameworks.setdefault(name, set())
        for name, found in symbols.items():
            frameworks.setdefault(name, set()).update(found)
    return frameworks


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--target", default="aarch64-apple-darwin")
    ap.add_argument("--manifest", type=Path, default=Path(__file__).resolve().parent.parent / "Cargo.toml")
    ap.add_argument("--go-root", type=Path, help="also the libraries Go's darwin runtime binds (a cgo link)")
    args = ap.parse_args()
    if "apple-darwin" not in args.target:
        print(f"macos_stubs: {args.target} is not a macOS target", file=sys.stderr)
        return 2
    frameworks = collect(graph_roots(args.target, args.manifest))
    write_stubs(args.out, frameworks, go_libraries(args.go_root) if args.go_root else None)
    counts = ", ".join(f"{k} {len(v)}" for k, v in sorted(frameworks.items()))
    print(f"macos_stubs: {args.out}: {counts}", file=sys.stderr)
    print(os.fspath(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
