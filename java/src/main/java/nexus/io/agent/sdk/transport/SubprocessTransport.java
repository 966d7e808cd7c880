package nexus.io.agent.sdk.transport;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import nexus.io.agent.sdk.AgentConnectionException;
import nexus.io.agent.sdk.SessionClosedException;

/** The {@code dcl} executable as a child process, stream-json on its stdin and stdout. */
public final class SubprocessTransport implements Transport {
  private static final int STDERR_LINES = 40;

  private final Process process;
  private final BufferedReader stdout;
  private final Writer stdin;
  private final Deque<String> stderrTail = new ArrayDeque<String>();
  private final Thread stderrReader;
  private boolean inputEnded;
  private volatile boolean closed;

  /**
   * Starts {@code dcl}.
   *
   * @param argv the command line, executable first
   * @param env the child's whole environment
   * @param cwd its working directory, or null for this process's
   * @throws AgentConnectionException when it cannot start
   */
  public SubprocessTransport(List<String> argv, Map<String, String> env, String cwd) {
    ProcessBuilder pb = new ProcessBuilder(argv);
    pb.environment().clear();
    pb.environment().putAll(env);
    if (cwd != null) {
      File dir = new File(cwd);
      if (!dir.isDirectory()) {
        throw new nexus.io.agent.sdk.InvalidOptionsException(
            "invalid session options: the working directory " + cwd + " does not exist", "cwd");
      }
      pb.directory(dir);
    }
    try {
      process = pb.start();
    } catch (IOException e) {
      throw new AgentConnectionException("cannot start " + argv.get(0) + ": " + e.getMessage(), e);
    }
    stdout =
        new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8), 1 << 16);
    stdin = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    stderrReader = new Thread(this::drainStderr, "dcl-stderr");
    stderrReader.setDaemon(true);
    stderrReader.start();
  }

  private void drainStderr() {
    try {
      BufferedReader err =
          new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8));
      for (String line; (line = err.readLine()) != null; ) {
        synchronized (stderrTail) {
          stderrTail.addLast(line);
          if (stderrTail.size() > STDERR_LINES) {
            stderrTail.removeFirst();
          }
        }
      }
    } catch (IOException ignored) {
      // the process is gone; what was read is kept
    }
  }

  @Override
  public synchronized void send(String line) {
    if (closed || inputEnded) {
      throw new SessionClosedException("the session's input is closed");
    }
    try {
      stdin.write(line);
      stdin.write('\n');
      stdin.flush();
    } catch (IOException e) {
      throw new SessionClosedException("the dcl process does not read its input" + describe());
    }
  }

  @Override
  public List<String> recv(long timeoutMs) {
    // Blocks until a line or end of stream; close() ends the stream, which is what the
    // timeout is for on other transports.
    try {
      String line = stdout.readLine();
      return line == null ? null : Collections.singletonList(line);
    } catch (IOException e) {
      return null;
    }
  }

  @Override
  public synchronized void endInput() {
    if (!inputEnded) {
      inputEnded = true;
      try {
        stdin.close();
      } catch (IOException ignored) {
        // already gone
      }
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    endInput();
    process.destroy();
    try {
      if (!process.waitFor(3, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(3, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    try {
      stdout.close();
    } catch (IOException ignored) {
      // nothing left to read
    }
  }

  @Override
  public String sessionId() {
    return null;
  }

  /** @return the child's process (for tests and diagnostics) */
  public Process process() {
    return process;
  }

  @Override
  public String describe() {
    StringBuilder sb = new StringBuilder();
    if (!process.isAlive()) {
      sb.append(" (dcl exited with code ").append(process.exitValue()).append(')');
    }
    synchronized (stderrTail) {
      if (!stderrTail.isEmpty()) {
        sb.append("; stderr: ");
        for (String l : stderrTail) {
          sb.append(l).append('\n');
        }
      }
    }
    return sb.toString();
  }
}
