#!/usr/bin/env python3
"""Checks that a Python sdist carries every workspace crate the extension needs.

The crates come from `cargo metadata` (never a list written here): dcl-python and every
workspace crate it reaches through a path dependency of any kind (normal, build, dev — cargo
resolves the dev-dependencies of each workspace member of the sdist's workspace too). For
each such crate the sdist must hold its Cargo.toml, its build script, and every file git
tracks under its src/; and the workspace's Cargo.toml and Cargo.lock.

    python3 scripts/check_sdist.py dist/dcl-<version>.tar.gz
    python3 scripts/check_sdist.py --build [--maturin PATH]   # `maturin sdist` to a temp dir first

This is the cheap check CI runs (python/ci.sh); a full source build of the sdist is not
run in CI (README, "Install", says how it was verified by hand).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ROOT_CRATE = "dcl-python"


def needed_crates() -> dict[str, Path]:
    """Crate name -> its directory relative to the workspace root."""
    out = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps", "--offline"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    meta = json.loads(out)
    ws = Path(meta["workspace_root"])
    by_name = {p["name"]: p for p in meta["packages"]}
    if ROOT_CRATE not in by_name:
        sys.exit(f"check_sdist: cargo metadata has no package {ROOT_CRATE}")
    seen: dict[str, Path] = {}
    queue = [ROOT_CRATE]
    while queue:
        name = queue.pop()
        if name in seen:
            continue
        seen[name] = Path(by_name[name]["manifest_path"]).parent.relative_to(ws)
        queue.extend(d["name"] for d in by_name[name]["dependencies"] if d.get("path") and d["name"] in by_name)
    return seen


def tracked(dir_: Path) -> list[str]:
    out = subprocess.run(["git", "ls-files", "--", str(dir_)], cwd=ROOT, check=True, capture_output=True, text=True)
    return [line for line in out.stdout.splitlines() if line]


def check(sdist: Path) -> None:
    with tarfile.open(sdist) as t:
        names = t.getnames()
    # Every member sits under one top folder, dcl-<version>/.
    tops = {n.split("/", 1)[0] for n in names}
    if len(tops) != 1:
        sys.exit(f"check_sdist: {sdist} has several top folders: {sorted(tops)}")
    top = tops.pop()
    have = {n.split("/", 1)[1] for n in names if "/" in n}
    crates = needed_crates()
    missing: list[str] = []
    for want in ("Cargo.toml", "Cargo.lock"):
        if want not in have:
            missing.append(want)
    for name, rel in sorted(crates.items()):
        files = [f"{rel.as_posix()}/Cargo.toml"]
        if (ROOT / rel / "build.rs").is_file():
            files.append(f"{rel.as_posix()}/build.rs")
        files += tracked(rel / "src")
        for f in files:
            if f not in have:
                missing.append(f"{f} ({name})")
    if missing:
        shown = "\n  ".join(missing[:40])
        more = f"\n  … and {len(missing) - 40} more" if len(missing) > 40 else ""
        sys.exit(f"check_sdist: {sdist.name} lacks what cargo metadata says the extension needs:\n  {shown}{more}")
    print(f"check_sdist: {sdist.name} ({top}/) carries all {len(crates)} crates dcl-python needs: {', '.join(sorted(crates))}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("sdist", nargs="?", type=Path)
    ap.add_argument("--build", action="store_true", help="build the sdist with maturin into a temp dir first")
    ap.add_argument("--maturin", default=os.environ.get("MATURIN") or shutil.which("maturin") or "maturin")
    a = ap.parse_args()
    # A path is taken from the caller's directory (maturin runs in python/).
    a.maturin = os.path.abspath(a.maturin) if os.sep in a.maturin else a.maturin
    if a.build == (a.sdist is not None):
        ap.error("give an sdist or --build (not both)")
    if a.sdist is not None:
        check(a.sdist)
        return
    with tempfile.TemporaryDirectory(prefix="dcl-sdist-") as out:
        run = subprocess.run([a.maturin, "sdist", "--out", out], cwd=ROOT / "python", capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"check_sdist: maturin sdist failed:\n{run.stdout}{run.stderr}")
        found = sorted(Path(out).glob("dcl-*.tar.gz"))
        if len(found) != 1:
            sys.exit(f"check_sdist: maturin sdist wrote {found}")
        check(found[0])


if __name__ == "__main__":
    main()
