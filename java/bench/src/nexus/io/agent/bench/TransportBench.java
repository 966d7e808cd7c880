package nexus.io.agent.bench;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import nexus.io.agent.sdk.Agent;
import nexus.io.agent.sdk.AgentClient;
import nexus.io.agent.sdk.AgentOptions;
import nexus.io.agent.sdk.MessageStream;
import nexus.io.agent.sdk.TransportKind;
import nexus.io.agent.sdk.message.Message;

/**
 * In-process (JNI) vs subprocess, in one run, on dcl's mock model: time to first message, time
 * per turn, and memory (PSS of this JVM plus its dcl children) for N concurrent open sessions.
 * Then N concurrent sessions in this JVM (all open, one turn each, then one more turn on all at
 * once): heap, RSS, threads and descriptors per idle session, turns per second. Prints markdown
 * tables. Run by {@code java/bench/run.sh}; {@code -Dbench.concurrent=1000,100} sets the
 * concurrent phase's in-process and subprocess counts (0 skips one), {@code -Dbench.only=concurrent}
 * runs only that phase.
 */
public final class TransportBench {
  private TransportBench() {}

  private static AgentOptions opts(TransportKind kind, File cwd) {
    AgentOptions o = new AgentOptions().transport(kind).model("mock-model").cwd(cwd).settingSources();
    // -Dbench.persist=false: no transcript (in-process only; the CLI has no such flag).
    if (kind == TransportKind.IN_PROCESS && "false".equals(System.getProperty("bench.persist"))) {
      o.sessionOption("persistSession", false);
    }
    return o;
  }

  /**
   * @param args {@code [iterations] [sessions...]}, default {@code 30 100 1000}
   * @throws Exception on failure
   */
  public static void main(String[] args) throws Exception {
    int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 30;
    List<Integer> counts = new ArrayList<Integer>();
    for (int i = 1; i < args.length; i++) {
      counts.add(Integer.parseInt(args[i]));
    }
    if (counts.isEmpty()) {
      counts.add(100);
      counts.add(1000);
    }
    File cwd = Files.createTempDirectory("dcl-bench").toFile();
    String[] conc = System.getProperty("bench.concurrent", "1000,100").split(",");
    List<String> concRows = new ArrayList<String>();
    for (int i = 0; i < 2; i++) {
      int n = Integer.parseInt(conc[Math.min(i, conc.length - 1)].trim());
      if (n > 0) {
        concRows.add(concurrent(i == 0 ? TransportKind.IN_PROCESS : TransportKind.SUBPROCESS, cwd, n));
      }
    }
    System.out.println("N concurrent sessions in one JVM: all open, one turn each, then one more turn on");
    System.out.println("all at once (growth over the JVM before opening; fds and threads per idle session):");
    System.out.println();
    System.out.println("| transport | sessions | open + turn 1, s | turn 2 on all at once, s | turns/s | heap used, MiB | RSS growth, MiB (JVM + children) | threads (+ per session) | fds per idle session |");
    System.out.println("|---|---|---|---|---|---|---|---|---|");
    for (String r : concRows) {
      System.out.println(r);
    }
    System.out.println();
    if ("concurrent".equals(System.getProperty("bench.only"))) {
      return;
    }
    TransportKind[] kinds = {TransportKind.IN_PROCESS, TransportKind.SUBPROCESS};
    List<String> rows = new ArrayList<String>();
    for (TransportKind kind : kinds) {
      for (int i = 0; i < 3; i++) {
        Agent.query("hi", opts(kind, cwd)); // warm-up (class loading, page cache)
      }
      double[] first = new double[iterations];
      double[] result = new double[iterations];
      for (int i = 0; i < iterations; i++) {
        long t0 = System.nanoTime();
        try (MessageStream s = Agent.stream("hi", opts(kind, cwd))) {
          Message m = s.next();
          first[i] = ms(t0);
          while (s.hasNext()) {
            m = s.next();
          }
          result[i] = ms(t0);
          if (!"result".equals(m.getType())) {
            throw new IllegalStateException("no result: " + m);
          }
        }
      }
      double[] turns = new double[iterations * 2];
      try (AgentClient c = Agent.connect(opts(kind, cwd))) {
        for (int i = 0; i < 5; i++) {
          c.send("hi");
        }
        for (int i = 0; i < turns.length; i++) {
          long t0 = System.nanoTime();
          c.send("hi");
          turns[i] = ms(t0);
        }
      }
      rows.add(
          String.format(
              Locale.ROOT,
              "| %s | %.1f / %.1f | %.1f | %.2f / %.2f |",
              name(kind),
              median(first),
              p90(first),
              median(result),
              median(turns),
              p90(turns)));
    }
    List<String> memRows = new ArrayList<String>();
    for (int n : counts) {
      StringBuilder row = new StringBuilder("| " + n + " |");
      for (TransportKind kind : kinds) {
        row.append(' ').append(memory(kind, cwd, n)).append(" |");
      }
      memRows.add(row.toString());
    }
    System.out.println("Java SDK on the mock model, median / p90 in ms (" + iterations + " runs):");
    System.out.println();
    System.out.println("| transport | open + first message | open + result (one turn) | per turn, warm session |");
    System.out.println("|---|---|---|---|");
    for (String r : rows) {
      System.out.println(r);
    }
    System.out.println();
    System.out.println("Memory of N open sessions (each has run one turn): PSS of the JVM plus its dcl");
    System.out.println("processes, growth over the idle JVM, total MiB (per session KiB):");
    System.out.println();
    System.out.println("| sessions | in-process | subprocess |");
    System.out.println("|---|---|---|");
    for (String r : memRows) {
      System.out.println(r);
    }
  }

  private static String memory(final TransportKind kind, final File cwd, int n) throws Exception {
    System.gc();
    Thread.sleep(500);
    long before = pssKib();
    List<Future<AgentClient>> opened = new ArrayList<Future<AgentClient>>();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    List<AgentClient> clients = new ArrayList<AgentClient>();
    try {
      for (int i = 0; i < n; i++) {
        opened.add(
            pool.submit(
                () -> {
                  AgentClient c = Agent.connect(opts(kind, cwd));
                  c.send("hi");
                  return c;
                }));
      }
      for (Future<AgentClient> f : opened) {
        clients.add(f.get());
      }
      System.gc();
      Thread.sleep(1000);
      long after = pssKib();
      long grown = after - before;
      return String.format(Locale.ROOT, "%.0f MiB (%d KiB)", grown / 1024.0, grown / n);
    } finally {
      for (AgentClient c : clients) {
        c.close();
      }
      pool.shutdownNow();
    }
  }

  /** Sends "hi" on every client, then reads every result; returns the seconds taken. */
  private static double turnOnAll(List<AgentClient> clients) {
    long t0 = System.nanoTime();
    for (AgentClient c : clients) {
      c.query("hi");
    }
    for (AgentClient c : clients) {
      String type = null;
      for (Message m : c.receiveResponse()) {
        type = m.getType();
      }
      if (!"result".equals(type)) {
        throw new IllegalStateException("no result");
      }
    }
    return ms(t0) / 1000;
  }

  private static String concurrent(final TransportKind kind, final File cwd, int n) throws Exception {
    Agent.query("hi", opts(kind, cwd)); // warm-up
    System.gc();
    Thread.sleep(500);
    long rss0 = rssKib();
    int fds0 = fds();
    int threads0 = threads();
    List<AgentClient> clients = new ArrayList<AgentClient>();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      long t0 = System.nanoTime();
      List<Future<AgentClient>> opened = new ArrayList<Future<AgentClient>>();
      for (int i = 0; i < n; i++) {
        opened.add(pool.submit(() -> Agent.connect(opts(kind, cwd))));
      }
      for (Future<AgentClient> f : opened) {
        clients.add(f.get());
      }
      pool.shutdown();
      double first = ms(t0) / 1000 + turnOnAll(clients);
      double second = turnOnAll(clients);
      System.gc();
      Thread.sleep(1000);
      Runtime rt = Runtime.getRuntime();
      double heap = (rt.totalMemory() - rt.freeMemory()) / 1048576.0;
      double rss = (rssKib() - rss0) / 1024.0;
      int threads = threads() - threads0;
      double fds = (fds() - fds0) / (double) n;
      return String.format(
          Locale.ROOT,
          "| %s | %d | %.2f | %.2f | %.0f | %.0f | %.0f | %d (%.2f) | %.2f |",
          name(kind), n, first, second, n / second, heap, rss, threads, threads / (double) n, fds);
    } finally {
      for (AgentClient c : clients) {
        c.close();
      }
      pool.shutdownNow();
    }
  }

  /** Threads of this process (every JVM and native thread), from /proc. */
  private static int threads() throws IOException {
    for (String line : Files.readAllLines(new File("/proc/self/status").toPath(), StandardCharsets.UTF_8)) {
      if (line.startsWith("Threads:")) {
        return Integer.parseInt(line.replaceAll("[^0-9]", ""));
      }
    }
    return 0;
  }

  private static int fds() {
    String[] list = new File("/proc/self/fd").list();
    return list == null ? 0 : list.length;
  }

  /** RSS of this process and its direct children, KiB. */
  private static long rssKib() throws IOException {
    String self = new File("/proc/self").getCanonicalFile().getName();
    long total = rss(self);
    File[] procs = new File("/proc").listFiles();
    if (procs != null) {
      for (File p : procs) {
        if (!p.getName().matches("\\d+")) {
          continue;
        }
        try {
          String stat = new String(Files.readAllBytes(new File(p, "stat").toPath()), StandardCharsets.UTF_8);
          String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
          if (f[1].equals(self)) {
            total += rss(p.getName());
          }
        } catch (IOException gone) {
          // exited meanwhile
        }
      }
    }
    return total;
  }

  private static long rss(String pid) throws IOException {
    for (String line : Files.readAllLines(new File("/proc/" + pid + "/status").toPath(), StandardCharsets.UTF_8)) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    return 0;
  }

  private static String name(TransportKind k) {
    return k == TransportKind.IN_PROCESS ? "in-process (JNI)" : "subprocess (dcl)";
  }

  /** PSS of this process and its direct children, from /proc (Linux). */
  private static long pssKib() throws IOException {
    String self = new File("/proc/self").getCanonicalFile().getName();
    long total = pss(self);
    File[] procs = new File("/proc").listFiles();
    if (procs != null) {
      for (File p : procs) {
        if (!p.getName().matches("\\d+")) {
          continue;
        }
        try {
          String stat = new String(Files.readAllBytes(new File(p, "stat").toPath()), StandardCharsets.UTF_8);
          String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
          if (f[1].equals(self)) {
            total += pss(p.getName());
          }
        } catch (IOException gone) {
          // exited meanwhile
        }
      }
    }
    return total;
  }

  private static long pss(String pid) throws IOException {
    for (String line : Files.readAllLines(new File("/proc/" + pid + "/smaps_rollup").toPath(), StandardCharsets.UTF_8)) {
      if (line.startsWith("Pss:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    return 0;
  }

  private static double ms(long t0) {
    return (System.nanoTime() - t0) / 1e6;
  }

  private static double median(double[] v) {
    return quantile(v, 0.5);
  }

  private static double p90(double[] v) {
    return quantile(v, 0.9);
  }

  private static double quantile(double[] v, double q) {
    List<Double> s = new ArrayList<Double>();
    for (double d : v) {
      s.add(d);
    }
    Collections.sort(s);
    return s.get(Math.min(s.size() - 1, (int) Math.floor(q * (s.size() - 1) + 0.5)));
  }
}
