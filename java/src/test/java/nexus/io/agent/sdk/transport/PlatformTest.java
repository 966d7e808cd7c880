package nexus.io.agent.sdk.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Which native/<os>-<arch>/ directory the loader picks, for each os.name / os.arch pair. */
class PlatformTest {
  @Test
  void eachSupportedPairNamesItsDirectory() {
    assertEquals("linux-x86_64", NativeBridge.platform("Linux", "amd64", false));
    assertEquals("linux-aarch64", NativeBridge.platform("Linux", "aarch64", false));
    assertEquals("linux-musl-x86_64", NativeBridge.platform("Linux", "amd64", true));
    assertEquals("linux-musl-aarch64", NativeBridge.platform("Linux", "aarch64", true));
    assertEquals("darwin-x86_64", NativeBridge.platform("Mac OS X", "x86_64", false));
    assertEquals("darwin-aarch64", NativeBridge.platform("Mac OS X", "aarch64", false));
    assertEquals("windows-x86_64", NativeBridge.platform("Windows 11", "amd64", false));
    assertEquals("windows-x86_64", NativeBridge.platform("Windows Server 2022", "x64", false));
  }

  @Test
  void muslMattersOnlyOnLinux() {
    assertEquals("darwin-aarch64", NativeBridge.platform("Mac OS X", "arm64", true));
    assertEquals("windows-x86_64", NativeBridge.platform("Windows 10", "amd64", true));
  }

  @Test
  void anUnknownPairKeepsItsNamesSoNoBundledLibraryMatches() {
    assertEquals("freebsd-x86_64", NativeBridge.platform("FreeBSD", "amd64", false));
    assertEquals("linux-riscv64", NativeBridge.platform("Linux", "riscv64", false));
  }
}
