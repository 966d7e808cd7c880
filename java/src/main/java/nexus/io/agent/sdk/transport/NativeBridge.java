package nexus.io.agent.sdk.transport;

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Locale;

/**
 * The JNI entry points of {@code libdcl_java} (crate {@code bindings/java}), and its loading.
 *
 * <p>The library is looked for, in order: at the path in the system property {@code
 * dcl.native.lib}; in this jar under {@code native/<os>-<arch>/} (for example {@code
 * native/linux-x86_64/libdcl_java.so}), extracted to a temporary file; on {@code
 * java.library.path}. Handles are table indexes on the Rust side, so a stale handle raises
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
  }

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
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
    String o =
        os.contains("linux")
            ? "linux"
            : os.contains("mac") || os.contains("darwin")
                ? "darwin"
                : os.contains("windows") ? "windows" : os.replace(' ', '_');
    String a =
        arch.equals("amd64") || arch.equals("x86_64")
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
    String resource = "/native/" + platform() + "/" + name;
    InputStream in = NativeBridge.class.getResourceAsStream(resource);
    if (in == null) {
      System.loadLibrary("dcl_java");
      return "java.library.path";
    }
    File tmp = File.createTempFile("libdcl_java-", name.substring(name.lastIndexOf('.')));
    try {
      OutputStream out = new FileOutputStream(tmp);
      try {
        byte[] buf = new byte[1 << 16];
        for (int n; (n = in.read(buf)) > 0; ) {
          out.write(buf, 0, n);
        }
      } finally {
        out.close();
        in.close();
      }
      System.load(tmp.getAbsolutePath());
    } finally {
      // Loaded libraries stay mapped after their file is gone (not so on Windows).
      if (!tmp.delete()) {
        tmp.deleteOnExit();
      }
    }
    return "jar:" + resource;
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
