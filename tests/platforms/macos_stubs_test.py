#!/usr/bin/env python3
"""Tests of scripts/macos_stubs.py on made-up crates: which symbols land in which framework's
stub, and which must not (commented out, another library's, a crate without a framework)."""

from __future__ import annotations

import importlib.util
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
spec = importlib.util.spec_from_file_location("macos_stubs", ROOT / "scripts" / "macos_stubs.py")
assert spec and spec.loader
stubs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(stubs)


def crate(files: dict[str, str]) -> Path:
    root = Path(tempfile.mkdtemp())
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


class Collect(unittest.TestCase):
    def test_crate_level_framework_owns_its_unattributed_blocks(self) -> None:
        root = crate({
            "src/lib.rs": '#[cfg_attr(target_os = "macos", link(name = "CoreFoundation", kind = "framework"))]\nextern "C" {}\npub mod string;\n',
            "src/string.rs": 'extern "C" {\n    pub fn CFStringCreateCopy(a: *const u8) -> *const u8;\n'
            '    // pub fn CFCommentedOut();\n    /* pub fn CFBlockComment(); */\n    pub static kCFAllocatorDefault: *const u8;\n}\n',
        })
        got = stubs.collect([root])
        self.assertEqual(got["CoreFoundation"], {"CFStringCreateCopy", "kCFAllocatorDefault"})

    def test_attributed_block_goes_to_its_framework(self) -> None:
        root = crate({
            "src/lib.rs": '#[link(name = "SystemConfiguration", kind = "framework")]\nextern "system" {\n    fn SCDynamicStoreCopyComputerName(s: *mut u8) -> *mut u8;\n}\n'
            'extern "C" {\n    fn getpid() -> i32;\n}\n',
        })
        got = stubs.collect([root])
        self.assertEqual(got["SystemConfiguration"], {"SCDynamicStoreCopyComputerName"})
        self.assertFalse(any("getpid" in v for v in got.values()), "a libSystem function went into a framework stub")

    def test_macro_generated_statics(self) -> None:
        root = crate({
            "src/lib.rs": '#[link(name = "Security", kind = "framework")]\nextern "C" {}\nmod key;\n',
            "src/key.rs": 'macro_rules! names {\n    ($( $i:ident => $x:ident),*) => {\n        extern "C" {\n'
            '            $(pub static $x: *const u8;)*\n        }\n    }\n}\nnames! {\n    RsaRaw => kSecKeyAlgorithmRSASignatureRaw,\n'
            '    EcdhStd => kSecKeyAlgorithmECDHKeyExchangeStandard\n}\n',
        })
        got = stubs.collect([root])
        self.assertEqual(got["Security"], {"kSecKeyAlgorithmRSASignatureRaw", "kSecKeyAlgorithmECDHKeyExchangeStandard"})
        self.assertNotIn("RsaRaw", got["Security"])

    def test_build_script_frameworks_get_a_stub(self) -> None:
        root = crate({"src/lib.rs": "", "build.rs": 'fn main() { println!("cargo:rustc-link-lib=framework=Metal"); }\n'})
        self.assertIn("Metal", stubs.collect([root]))

    def test_a_crate_without_a_framework_adds_nothing(self) -> None:
        root = crate({"src/lib.rs": 'extern "C" {\n    pub fn CFLookalike();\n}\n'})
        got = stubs.collect([root])
        self.assertFalse(any("CFLookalike" in v for v in got.values()))

    def test_go_runtime_libraries(self) -> None:
        goroot = crate({
            "src/internal/syscall/unix/net_darwin.go": '//go:cgo_import_dynamic libresolv_res_9_ninit res_9_ninit "/usr/lib/libresolv.9.dylib"\n'
            '//go:cgo_import_dynamic libc_getpid getpid "/usr/lib/libSystem.B.dylib"\n',
            "src/net/x_darwin_test.go": '//go:cgo_import_dynamic t_x res_9_test "/usr/lib/libresolv.9.dylib"\n',
        })
        libs = stubs.go_libraries(goroot)
        self.assertEqual(libs, {"/usr/lib/libresolv.9.dylib": {"res_9_ninit"}})
        out = Path(tempfile.mkdtemp())
        stubs.write_stubs(out, {}, libs)
        self.assertIn("install-name:    '/usr/lib/libresolv.9.dylib'", (out / "libresolv.tbd").read_text())

    def test_tbd_names_the_install_path_and_both_architectures(self) -> None:
        out = Path(tempfile.mkdtemp())
        stubs.write_stubs(out, {"Security": {"SecItemCopyMatching"}})
        text = (out / "Security.framework" / "Security.tbd").read_text()
        self.assertIn("install-name:    '/System/Library/Frameworks/Security.framework/Versions/A/Security'", text)
        self.assertIn("[ x86_64-macos, arm64-macos ]", text)
        self.assertIn("_SecItemCopyMatching", text)
        self.assertIn("_iconv_open", (out / "libiconv.tbd").read_text())


if __name__ == "__main__":
    sys.exit(unittest.main())
