#!/usr/bin/env python3
"""Checks what scripts/dist.sh --target/--all wrote into dist/ for each target: every artifact
is there and is built for its platform.

    python3 tests/install/check_targets.py [dist-dir] [--all]

Per target in dist/<triple>/, as scripts/dist-cross.sh writes it (and this machine's own quick
build at the top of dist/, scripts/dist.sh without arguments: its static-pie dcl, its wheel
linked against this machine's glibc, manylinux_2_34 or older, and its npm package):
  - the executable, as `file` describes it (Mach-O arm64, PE32+ x86-64, static aarch64 ELF...);
  - the abi3 wheel with that platform's tag (manylinux_2_28 or older, musllinux_1_2, macosx_*,
    win_amd64), holding the extension for the platform and the same executable as dcl/_bin/;
  - the npm package @dcl/agent-<napi platform> with its os/cpu/libc, addon and executable;
  - the JNI library and executable under java/<os>-<arch>/ with matching .sha256 files;
  - the C library for the platform and dcl.h;
  - go.ok on Linux and macOS (the Go module's cgo test binary linked for the target).
Then the jar: it carries native/<os>-<arch>/ for every target found (scripts/jar_all.py).

Without --all, the targets present are checked and the missing ones listed; with --all a
missing target is a failure.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import subprocess
import sys
import tarfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

# The top of dist/: scripts/dist.sh's own build for this machine.
HOST = "host"


@dataclass(frozen=True)
class Target:
    exe: str
    file_re: str  # what `file -b` says of the executable and the libraries' architecture
    lib_re: str  # what `file -b` says of a shared library
    wheel_re: str  # the wheel's platform tag
    napi: str
    npm_os: str
    npm_cpu: str
    npm_libc: str | None
    jdir: str
    lib: str  # the shared-library file name pattern: {} is the library's name
    go: bool


ELF_X64 = r"ELF 64-bit LSB .*x86-64"
ELF_ARM = r"ELF 64-bit LSB .*ARM aarch64"
ELF_SO_X64 = r"ELF 64-bit LSB shared object, x86-64"
ELF_SO_ARM = r"ELF 64-bit LSB shared object, ARM aarch64"
TARGETS = {
    HOST: Target("dcl", ELF_X64 + ".*static", ELF_SO_X64, r"manylinux_2_(1[7-9]|2[0-9]|3[0-4])_x86_64|manylinux2014_x86_64",
                 "linux-x64-gnu", "linux", "x64", "glibc", "linux-x86_64", "lib{}.so", True),
    "x86_64-unknown-linux-gnu": Target("dcl", ELF_X64, ELF_SO_X64, r"manylinux_2_(1[7-9]|2[0-8])_x86_64|manylinux2014_x86_64",
                 "linux-x64-gnu", "linux", "x64", "glibc", "linux-x86_64", "lib{}.so", True),
    "aarch64-unknown-linux-gnu": Target("dcl", ELF_ARM, ELF_SO_ARM, r"manylinux_2_(1[7-9]|2[0-8])_aarch64|manylinux2014_aarch64",
                                        "linux-arm64-gnu", "linux", "arm64", "glibc", "linux-aarch64", "lib{}.so", True),
    "x86_64-unknown-linux-musl": Target("dcl", ELF_X64 + ".*static", ELF_SO_X64, r"musllinux_1_[0-2]_x86_64",
                                        "linux-x64-musl", "linux", "x64", "musl", "linux-musl-x86_64", "lib{}.so", True),
    "aarch64-unknown-linux-musl": Target("dcl", ELF_ARM + ".*static", ELF_SO_ARM, r"musllinux_1_[0-2]_aarch64",
                                         "linux-arm64-musl", "linux", "arm64", "musl", "linux-musl-aarch64", "lib{}.so", True),
    "x86_64-apple-darwin": Target("dcl", r"Mach-O 64-bit .*x86_64", r"Mach-O 64-bit .*x86_64.*dynamically linked shared library",
                                  r"macosx_1[0-9]_[0-9]+_x86_64", "darwin-x64", "darwin", "x64", None, "darwin-x86_64", "lib{}.dylib", True),
    "aarch64-apple-darwin": Target("dcl", r"Mach-O 64-bit .*arm64", r"Mach-O 64-bit .*arm64.*dynamically linked shared library",
                                   r"macosx_1[1-9]_[0-9]+_arm64", "darwin-arm64", "darwin", "arm64", None, "darwin-aarch64", "lib{}.dylib", True),
    "x86_64-pc-windows-gnu": Target("dcl.exe", r"PE32\+ executable .*x86-64", r"PE32\+ executable \(DLL\).*x86-64",
                                    r"win_amd64", "win32-x64-gnu", "win32", "x64", None, "windows-x86_64", "{}.dll", False),
}


def describe(data: bytes) -> str:
    return subprocess.run(["file", "-b", "-"], input=data, capture_output=True, check=True).stdout.decode().strip()


class Checker:
    def __init__(self, dist: Path, version: str):
        self.dist, self.version = dist, version
        self.failed: list[str] = []
        self.ok: list[str] = []

    def expect(self, cond: bool, what: str) -> bool:
        (self.ok if cond else self.failed).append(what)
        return cond

    def kind(self, what: str, data: bytes, pattern: str) -> None:
        desc = describe(data)
        self.expect(re.search(pattern, desc) is not None, f"{what}: {desc[:100]}")

    def target(self, triple: str, t: Target) -> None:
        d = self.dist if triple == HOST else self.dist / triple
        exe = (d / t.exe).read_bytes()
        self.kind(f"{triple} executable", exe, t.file_re)
        self.wheel(triple, t, d, exe)
        self.npm(triple, t, d, exe)
        if triple != HOST:  # the host's jar directory is checked in the jar below
            self.jni(triple, t, d)
            self.c_library(triple, t, d)
            if t.go:
                self.expect((d / "go.ok").is_file(), f"{triple}: go.ok (the Go module's cgo build)")

    def wheel(self, triple: str, t: Target, d: Path, exe: bytes) -> None:
        wheels = sorted(d.glob(f"dcl-{self.version}-cp39-abi3-*.whl"))
        if not self.expect(len(wheels) == 1, f"{triple}: one abi3 wheel ({[w.name for w in wheels]})"):
            return
        tag = wheels[0].name.split("-abi3-")[1].removesuffix(".whl")
        self.expect(all(re.fullmatch(t.wheel_re, p) for p in tag.split(".")), f"{triple}: wheel tag {tag}")
        with zipfile.ZipFile(wheels[0]) as z:
            names = z.namelist()
            ext = [n for n in names if n.startswith("dcl/_native") and n.endswith((".so", ".pyd"))]
            if self.expect(len(ext) == 1, f"{triple}: wheel extension {ext}"):
                self.kind(f"{triple} wheel extension", z.read(ext[0]), t.lib_re)
            binary = f"dcl/_bin/{t.exe}"
            self.expect(binary in names and z.read(binary) == exe, f"{triple}: wheel {binary} is the executable")

    def npm(self, triple: str, t: Target, d: Path, exe: bytes) -> None:
        tgz = d / f"dcl-agent-{t.napi}-{self.version}.tgz"
        if not self.expect(tgz.is_file(), f"{triple}: {tgz.name}"):
            return
        with tarfile.open(tgz) as tar:
            def read(name: str) -> bytes | None:
                try:
                    f = tar.extractfile(f"package/{name}")
                except KeyError:
                    return None
                return f.read() if f else None

            pkg = json.loads(read("package.json") or b"{}")
            want = {"name": f"@dcl/agent-{t.napi}", "version": self.version, "os": [t.npm_os], "cpu": [t.npm_cpu]}
            got = {k: pkg.get(k) for k in want}
            self.expect(got == want and pkg.get("libc") == ([t.npm_libc] if t.npm_libc else None),
                        f"{triple}: npm package.json {got} libc={pkg.get('libc')}")
            addon = read(f"dcl-node.{t.napi}.node")
            if self.expect(addon is not None, f"{triple}: npm addon"):
                self.kind(f"{triple} npm addon", addon or b"", t.lib_re)
            self.expect(read(f"bin/{t.exe}") == exe, f"{triple}: npm bin/{t.exe} is the executable")

    def jni(self, triple: str, t: Target, d: Path) -> None:
        jd = d / "java" / t.jdir
        for name in (t.lib.format("dcl_java"), t.exe):
            f = jd / name
            if not self.expect(f.is_file(), f"{triple}: java/{t.jdir}/{name}"):
                continue
            s = jd / (name + ".sha256")
            self.expect(s.is_file() and s.read_text().split()[0] == hashlib.sha256(f.read_bytes()).hexdigest(),
                        f"{triple}: java/{t.jdir}/{name}.sha256 matches")
        lib = jd / t.lib.format("dcl_java")
        if lib.is_file():
            self.kind(f"{triple} JNI library", lib.read_bytes(), t.lib_re)

    def c_library(self, triple: str, t: Target, d: Path) -> None:
        lib = d / "c" / t.lib.format("dcl")
        if self.expect(lib.is_file(), f"{triple}: c/{lib.name}"):
            self.kind(f"{triple} C library", lib.read_bytes(), t.lib_re)
        self.expect((d / "c" / "dcl.h").is_file(), f"{triple}: c/dcl.h")

    def jar(self, triples: list[str]) -> None:
        jars = sorted(self.dist.glob(f"agent-cli-sdk-{self.version}.jar"))
        if not self.expect(len(jars) == 1, f"jar agent-cli-sdk-{self.version}.jar"):
            return
        with zipfile.ZipFile(jars[0]) as z:
            names = set(z.namelist())
            for triple in triples:
                t = TARGETS[triple]
                if triple == HOST and "x86_64-unknown-linux-gnu" in triples:
                    continue  # the cross-built one replaced it (scripts/jar_all.py)
                for name in (t.lib.format("dcl_java"), t.exe):
                    entry = f"native/{t.jdir}/{name}"
                    if not self.expect(entry in names and entry + ".sha256" in names, f"jar: {entry} (+ .sha256)"):
                        continue
                    data = z.read(entry)
                    self.expect(z.read(entry + ".sha256").decode().split()[0] == hashlib.sha256(data).hexdigest(),
                                f"jar: {entry}.sha256 matches")
                    if name != t.exe:
                        self.kind(f"jar {entry}", data, t.lib_re)


def present(dist: Path) -> list[str]:
    out = []
    for triple, t in TARGETS.items():
        d = dist if triple == HOST else dist / triple
        if (d / t.exe).is_file():
            out.append(triple)
    return out


def version_of(dist: Path) -> str | None:
    """The version the artifacts carry, from a wheel's or an npm package's file name."""
    for p in sorted(dist.glob("**/dcl-*-cp39-abi3-*.whl")):
        return p.name.split("-")[1]
    for p in sorted(dist.glob("**/dcl-agent-*.tgz")):
        m = re.search(r"-(\d+\.\d+\.\d+[^/]*)\.tgz$", p.name)
        if m:
            return m.group(1)
    return None


def main() -> int:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    strict = "--all" in sys.argv
    dist = Path(args[0]) if args else Path(__file__).resolve().parents[2] / "dist"
    version = version_of(dist)
    found = present(dist)
    missing = [t for t in TARGETS if t not in found]
    c = Checker(dist, version or "?")
    if not version:
        c.failed.append(f"no wheel or npm package in {dist}: no version to check against")
    else:
        for triple in found:
            c.target(triple, TARGETS[triple])
        if (dist / f"agent-cli-sdk-{version}.jar").is_file() or strict:
            c.jar(found)
    for line in c.ok:
        print(f"ok   {line}")
    for line in c.failed:
        print(f"FAIL {line}")
    if missing:
        print(("FAIL" if strict else "note") + " missing targets: " + ", ".join(missing))
    return 1 if c.failed or (strict and missing) else 0


if __name__ == "__main__":
    sys.exit(main())
