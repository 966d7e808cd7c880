import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.ZipFile;
import nexus.io.agent.sdk.transport.NativeBridge;

/**
 * The jar's loader, simulated on every platform: for each {@code os.name} / {@code os.arch} a
 * JVM reports there, {@link NativeBridge#platform} must name a {@code native/} directory this
 * jar has, holding that OS's JNI library file name and the {@code dcl} executable, each with its
 * {@code .sha256}. Run by tests/install/run.sh:
 *
 * <pre>java -cp agent-cli-sdk.jar tests/install/jar/JarPlatforms.java agent-cli-sdk.jar [--all]</pre>
 *
 * Without {@code --all}, a platform whose directory the jar lacks is listed, not failed (a jar
 * built for this machine only); a directory with the wrong files always fails.
 */
public final class JarPlatforms {
  /** os.name, os.arch, musl, the directory, the library file, the executable. */
  private static final String[][] PAIRS = {
    {"Linux", "amd64", "false", "linux-x86_64", "libdcl_java.so", "dcl"},
    {"Linux", "aarch64", "false", "linux-aarch64", "libdcl_java.so", "dcl"},
    {"Linux", "amd64", "true", "linux-musl-x86_64", "libdcl_java.so", "dcl"},
    {"Linux", "aarch64", "true", "linux-musl-aarch64", "libdcl_java.so", "dcl"},
    {"Mac OS X", "x86_64", "false", "darwin-x86_64", "libdcl_java.dylib", "dcl"},
    {"Mac OS X", "aarch64", "false", "darwin-aarch64", "libdcl_java.dylib", "dcl"},
    {"Windows 11", "amd64", "false", "windows-x86_64", "dcl_java.dll", "dcl.exe"},
    {"Windows Server 2022", "amd64", "false", "windows-x86_64", "dcl_java.dll", "dcl.exe"},
  };

  public static void main(String[] args) throws IOException {
    boolean all = args.length > 1 && args[1].equals("--all");
    List<String> failed = new ArrayList<>();
    try (ZipFile jar = new ZipFile(args[0])) {
      for (String[] p : PAIRS) {
        String dir = NativeBridge.platform(p[0], p[1], Boolean.parseBoolean(p[2]));
        String what = p[0] + " / " + p[1] + (p[2].equals("true") ? " (musl)" : "");
        if (!dir.equals(p[3])) {
          failed.add(what + ": the loader looks in native/" + dir + ", not native/" + p[3]);
          continue;
        }
        String prefix = "native/" + dir + "/";
        if (jar.stream().noneMatch(e -> e.getName().startsWith(prefix))) {
          System.out.println((all ? "FAIL " : "note ") + what + ": the jar has no native/" + dir + "/");
          if (all) {
            failed.add(what + ": no native/" + dir);
          }
          continue;
        }
        int before = failed.size();
        for (String f : new String[] {p[4], p[4] + ".sha256", p[5], p[5] + ".sha256"}) {
          if (jar.getEntry(prefix + f) == null) {
            failed.add(what + ": " + prefix + f + " is missing");
          }
        }
        if (failed.size() == before) {
          System.out.println("ok   " + what + " -> " + prefix + p[4]);
        }
      }
    }
    for (String f : failed) {
      System.out.println("FAIL " + f);
    }
    System.exit(failed.isEmpty() ? 0 : 1);
  }
}
