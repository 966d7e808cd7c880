package nexus.io.agent.sdk.transport;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;

/**
 * The JNI entry points of {@code libdcl_java} (crate {@code bindings/java}), and its loading.
 *
 * <p>The library is looked for, in order: at the path in the system property {@code
 * dcl.native.lib}; in this jar under {@code native/<os>-<arch>/} (for example {@code
 * native/linux-x86_64/libdcl_java.so}), extracted to a private temporary directory and checked
 * against its {@code .sha256} (see {@link Bundled}); on {@code java.library.path}. It is loaded
 * once, by this class's initialiser. Handles are table indexes on the Rust side, so a stale handle raises
 * {@link nexus.io.agent.sdk.SessionClosedException} instead of touching freed memory.
 */
public final class NativeBridge {
  private static final Throwable LOAD_ERROR;
  private static final String LOADED_FROM;

  static {
    Throwable error = null;
    String from = null;
    try {
      from = load();
    } catch (Throwable t) {
      error = t;
    }
    LOAD_ERROR = error;
    LOADED_FROM = from;
    if (error == null) {
      // Session-store entries still queued when the JVM exits are written out first (the
      // drain waits up to DCL_SESSION_STORE_FLUSH_SECS, default 10, per store).
      Runtime.getRuntime()
          .addShutdownHook(new Thread(NativeBridge::closeSessionStores, "dcl-session-stores"));
    }
  }

  private static native void closeSessionStores();

  private NativeBridge() {}

  /** @return whether the native library loaded */
  public static boolean isAvailable() {
    return LOAD_ERROR == null;
  }

  /** @return why the library did not load, or null */
  public static Throwable loadError() {
    return LOAD_ERROR;
  }

  /** @return where the library was loaded from, or null */
  public static String loadedFrom() {
    return LOADED_FROM;
  }

  /** @return this platform's resource directory name ({@code linux-x86_64}) */
  public static String platform() {
    return platform(System.getProperty("os.name", ""), System.getProperty("os.arch", ""), runsOnMusl());
  }

  /**
   * Whether this JVM itself runs on musl: its own mappings name musl's loader. A musl loader
   * merely installed beside glibc (Debian's musl-tools) does not make the JVM a musl process.
   */
  private static boolean runsOnMusl() {
    try {
      for (String line : Files.readAllLines(FileSystems.getDefault().getPath("/proc/self/maps"))) {
        if (line.contains("/ld-musl-") || line.contains("/libc.musl-")) {
          return true;
        }
      }
    } catch (IOException | RuntimeException e) {
      // No /proc (macOS, Windows) or unreadable: not musl as far as can be told.
    }
    return false;
  }

  /**
   * The resource directory for an {@code os.name} / {@code os.arch} pair: {@code linux},
   * {@code linux-musl} (Alpine: a glibc library cannot load there), {@code darwin} or {@code
   * windows}, then {@code x86_64} or {@code aarch64}; an unknown pair keeps its own names, so
   * the jar has no directory for it and the loader falls back to {@code java.library.path}.
   *
   * @param osName the {@code os.name} property
   * @param osArch the {@code os.arch} property
   * @param musl whether the C library is musl (Linux only)
   * @return the directory name under {@code native/}
   */
  public static String platform(String osName, String osArch, boolean musl) {
    String os = osName.toLowerCase(Locale.ROOT);
    String arch = osArch.toLowerCase(Locale.ROOT);
    String o =
        os.contains("linux")
            ? (musl ? "linux-musl" : "linux")
            : os.contains("mac") || os.contains("darwin")
                ? "darwin"
                : os.contains("windows") ? "windows" : os.replace(' ', '_');
    String a =
        arch.equals("amd64") || arch.equals("x86_64") || arch.equals("x64")
            ? "x86_64"
            : arch.equals("aarch64") || arch.equals("arm64") ? "aarch64" : arch;
    return o + "-" + a;
  }

  private static String load() throws IOException {
    String explicit = System.getProperty("dcl.native.lib");
    if (explicit != null && !explicit.isEmpty()) {
      String path = new File(explicit).getAbsolutePath();
      System.load(path);
      return path;
    }
    String name = System.mapLibraryName("dcl_java");
    String resource = Bundled.DIR + name;
    if (NativeBridge.class.getResource(resource) == null) {
      System.loadLibrary("dcl_java");
      return "java.library.path";
    }
    File lib = Bundled.extract(resource, name, false);
    System.load(lib.getAbsolutePath());
    // Loaded libraries stay mapped after their file is gone (not so on Windows).
    if (!lib.delete()) {
      lib.deleteOnExit();
    }
    return "jar:" + resource;
  }

  /**
   * The files this jar carries for its platform, under {@code native/<os>-<arch>/}: {@code
   * libdcl_java} (loaded by {@link NativeBridge}) and the {@code dcl} executable (the
   * subprocess transport's default when no {@code dcl} is on {@code PATH}), each with a {@code
   * .sha256} next to it. A file is extracted into one private temporary directory (owner-only
   * permissions, removed at exit), its SHA-256 checked against the packed one before use.
   * Initialising this class does not load the native library.
   */
  public static final class Bundled {
    static final String DIR = "/native/" + platform() + "/";
    private static File privateDir;
    private static String cli;

    private Bundled() {}

    /**
     * @return the path of the {@code dcl} executable this jar carries, extracted (once) and
     *     verified; null when the jar has none for this platform
     * @throws IllegalStateException when it cannot be extracted or its checksum is wrong
     */
    public static synchronized String cliPath() {
      if (cli == null) {
        String name = platform().startsWith("windows") ? "dcl.exe" : "dcl";
        if (NativeBridge.class.getResource(DIR + name) == null) {
          return null;
        }
        try {
          cli = extract(DIR + name, name, true).getAbsolutePath();
        } catch (IOException e) {
          throw new IllegalStateException("could not extract the bundled dcl: " + e.getMessage(), e);
        }
      }
      return cli;
    }

    static synchronized File extract(String resource, String name, boolean executable)
        throws IOException {
      String expected = checksumOf(resource);
      File out = new File(dir(), name);
      MessageDigest sha = sha256();
      InputStream in = NativeBridge.class.getResourceAsStream(resource);
      if (in == null) {
        throw new IOException("missing resource " + resource);
      }
      try {
        OutputStream os = new FileOutputStream(out);
        try {
          byte[] buf = new byte[1 << 16];
          for (int n; (n = in.read(buf)) > 0; ) {
            sha.update(buf, 0, n);
            os.write(buf, 0, n);
          }
        } finally {
          os.close();
        }
      } finally {
        in.close();
      }
      out.deleteOnExit();
      String actual = hex(sha.digest());
      if (!actual.equals(expected)) {
        if (!out.delete()) {
          out.deleteOnExit();
        }
        throw new IOException(
            "checksum mismatch for " + resource + ": expected " + expected + ", got " + actual);
      }
      if (executable && !out.setExecutable(true, true)) {
        throw new IOException("cannot make " + out + " executable");
      }
      return out;
    }

    private static String checksumOf(String resource) throws IOException {
      InputStream in = NativeBridge.class.getResourceAsStream(resource + ".sha256");
      if (in == null) {
        throw new IOException("the jar has " + resource + " but no " + resource + ".sha256");
      }
      StringBuilder text = new StringBuilder();
      try {
        byte[] buf = new byte[256];
        for (int n; (n = in.read(buf)) > 0; ) {
          text.append(new String(buf, 0, n, "US-ASCII"));
        }
      } finally {
        in.close();
      }
      String sum = text.toString().trim().split("\\s+")[0].toLowerCase(Locale.ROOT);
      if (!sum.matches("[0-9a-f]{64}")) {
        throw new IOException(resource + ".sha256 holds no SHA-256: '" + text + "'");
      }
      return sum;
    }

    private static File dir() throws IOException {
      if (privateDir == null) {
        Path d;
        if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
          d =
              Files.createTempDirectory(
                  "dcl-native-",
                  PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        } else {
          d = Files.createTempDirectory("dcl-native-");
        }
        privateDir = d.toFile();
        // Registered first, so deleted last: after the files in it.
        privateDir.deleteOnExit();
      }
      return privateDir;
    }

    private static MessageDigest sha256() {
      try {
        return MessageDigest.getInstance("SHA-256");
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("no SHA-256 in this JVM", e);
      }
    }

    private static String hex(byte[] bytes) {
      StringBuilder sb = new StringBuilder(bytes.length * 2);
      for (byte b : bytes) {
        sb.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
      }
      return sb.toString();
    }
  }

  static native long open(String optionsJson);

  static native boolean send(long handle, String line);

  static native String recv(long handle, long timeoutMs);

  static native String[] recvBatch(long handle, int max, long timeoutMs);

  static native void interrupt(long handle);

  static native void endInput(long handle);

  static native void close(long handle);

  static native boolean free(long handle);

  static native String sessionId(long handle);

  /**
   * @return {@code "<dcl version> <protocol level>"} of the loaded library
   * @throws UnsatisfiedLinkError when it did not load
   */
  public static native String version();

  /** @return how many native sessions are open (not yet freed) */
  public static native int liveHandles();

  static native void panicForTest(String message);
}
