#!/usr/bin/env python3
"""Makes the jar scripts/dist.sh built for this machine carry every platform: each
dist/<triple>/java/<os>-<arch>/ that scripts/dist-cross.sh wrote (the JNI library and the
dcl executable, each with its .sha256) goes in under native/<os>-<arch>/, where
NativeBridge.platform() looks for the running JVM's os.name / os.arch.

    python3 scripts/jar_all.py [dist dir]

The jar is rewritten to a temporary file and renamed over the old one (a killed run leaves
the old jar). A directory the jar already has is replaced, not duplicated.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
import zipfile
from pathlib import Path


def platform_dirs(dist: Path) -> dict[str, Path]:
    found: dict[str, Path] = {}
    for java in sorted(dist.glob("*/java")):
        for d in sorted(p for p in java.iterdir() if p.is_dir()):
            found[d.name] = d
    return found


def check(d: Path) -> None:
    for f in d.iterdir():
        if f.suffix == ".sha256":
            continue
        sums = d / (f.name + ".sha256")
        want = sums.read_text().split()[0] if sums.is_file() else ""
        got = hashlib.sha256(f.read_bytes()).hexdigest()
        if want != got:
            raise SystemExit(f"jar_all: {f} does not match {sums.name}")


def main() -> int:
    dist = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "dist")
    jars = sorted(dist.glob("agent-cli-sdk-*.jar"))
    jars = [j for j in jars if not j.name.endswith(("-sources.jar", "-javadoc.jar"))]
    if len(jars) != 1:
        print(f"jar_all: want one agent-cli-sdk-<version>.jar in {dist}, found {[j.name for j in jars]}", file=sys.stderr)
        return 1
    jar = jars[0]
    dirs = platform_dirs(dist)
    for d in dirs.values():
        check(d)
    prefixes = tuple(f"native/{name}/" for name in dirs)
    fd, tmp = tempfile.mkstemp(prefix=".jar_all.", dir=dist)
    os.close(fd)
    try:
        with zipfile.ZipFile(jar) as src, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as out:
            for info in src.infolist():
                if not info.filename.startswith(prefixes):
                    out.writestr(info, src.read(info))
            for name, d in sorted(dirs.items()):
                for f in sorted(d.iterdir()):
                    info = zipfile.ZipInfo(f"native/{name}/{f.name}", date_time=(1980, 1, 1, 0, 0, 0))
                    info.compress_type = zipfile.ZIP_DEFLATED
                    info.external_attr = (0o100755 if os.access(f, os.X_OK) else 0o100644) << 16
                    out.writestr(info, f.read_bytes())
        os.replace(tmp, jar)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    with zipfile.ZipFile(jar) as z:
        have = sorted({n.split("/")[1] for n in z.namelist() if n.startswith("native/") and n.count("/") >= 2})
    print(f"jar_all: {jar.name} carries native/ for {', '.join(have)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
