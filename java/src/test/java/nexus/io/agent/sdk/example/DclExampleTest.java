package nexus.io.agent.sdk.example;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import nexus.io.agent.sdk.Agent;
import nexus.io.agent.sdk.TransportKind;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The seed's {@code DclExample}, unchanged (java/examples/dcl-example), run as its own program
 * against a fake Anthropic server: its {@code deepseek-flash} model is pointed there by base URL
 * ({@code DEEPSEEK_BASE_URL}), and {@code dcl} is found on {@code PATH} for the subprocess.
 */
class DclExampleTest {
  private static final String ANSWER = "README.md 介绍了 dcl：一个 Rust 编写的编程智能体运行时。";

  @TempDir Path dir;

  @ParameterizedTest
  @EnumSource(value = TransportKind.class, names = {"IN_PROCESS", "SUBPROCESS"})
  void printsTheResultOfTheFakeModel(TransportKind kind) throws Exception {
    Path work = Files.createDirectory(dir.resolve("work"));
    Path home = Files.createDirectory(dir.resolve("home"));
    Files.write(work.resolve("README.md"), "# demo\n".getBytes(StandardCharsets.UTF_8));
    try (FakeAnthropicServer model = new FakeAnthropicServer(ANSWER)) {
      File dclBin = new File(System.getProperty("dcl.cli.path"));
      assertTrue(dclBin.canExecute(), "built by the pom: " + dclBin);
      List<String> cmd = new ArrayList<String>();
      cmd.add(new File(System.getProperty("java.home"), "bin/java").getPath());
      cmd.add("-Ddcl.transport=" + (kind == TransportKind.IN_PROCESS ? "in-process" : "subprocess"));
      cmd.add("-Dfile.encoding=UTF-8");
      cmd.add("-cp");
      cmd.add(location(Agent.class) + File.pathSeparator + location(DclExampleTest.class));
      cmd.add("DclExample");
      ProcessBuilder pb = new ProcessBuilder(cmd).directory(work.toFile());
      pb.environment().put("DEEPSEEK_BASE_URL", model.baseUrl());
      pb.environment().put("DEEPSEEK_API_KEY", "sk-fake-deepseek");
      pb.environment().put("HOME", home.toString()); // no user settings
      pb.environment().put("PATH", dclBin.getParent() + File.pathSeparator + System.getenv("PATH"));
      pb.environment().remove("ANTHROPIC_API_KEY");
      pb.environment().remove("ANTHROPIC_BASE_URL");
      pb.environment().remove("DCL_MODEL");
      File errFile = dir.resolve("stderr.txt").toFile();
      pb.redirectError(errFile);
      Process p = pb.start();
      String out = read(p.getInputStream());
      assertTrue(p.waitFor(120, TimeUnit.SECONDS), "DclExample finished");
      String err = new String(Files.readAllBytes(errFile.toPath()), StandardCharsets.UTF_8);
      assertEquals(0, p.exitValue(), "stderr: " + err);
      assertEquals(ANSWER, out.trim(), "stderr: " + err);
      assertFalse(model.requests.isEmpty(), "the fake model was called");
      assertEquals("deepseek-flash", model.requests.get(0).body.get("model"));
      assertEquals("sk-fake-deepseek", model.requests.get(0).apiKey);
      // The user turn reached the model.
      assertTrue(messagesOf(model).contains("总结 README.md"), messagesOf(model));
    }
  }

  private static String messagesOf(FakeAnthropicServer model) {
    return nexus.io.agent.sdk.json.Json.write(model.requests.get(0).body.get("messages"));
  }

  private static String location(Class<?> c) throws Exception {
    return new File(c.getProtectionDomain().getCodeSource().getLocation().toURI()).getPath();
  }

  private static String read(InputStream in) throws Exception {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    byte[] b = new byte[8192];
    for (int n; (n = in.read(b)) > 0; ) {
      buf.write(b, 0, n);
    }
    return new String(buf.toByteArray(), StandardCharsets.UTF_8);
  }
}
