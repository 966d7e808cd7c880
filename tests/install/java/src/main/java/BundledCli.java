import java.io.File;
import java.nio.file.Files;
import nexus.io.agent.sdk.Agent;
import nexus.io.agent.sdk.AgentOptions;
import nexus.io.agent.sdk.PermissionMode;
import nexus.io.agent.sdk.TransportKind;
import nexus.io.agent.sdk.message.ResultMessage;
import nexus.io.agent.sdk.permission.PermissionResult;
import nexus.io.agent.sdk.transport.NativeBridge;

/**
 * The subprocess transport with no dcl on PATH and no cliPath: the SDK runs the dcl the jar
 * carries (extracted, checksummed). The mock model writes a file, allowed by canUseTool.
 *
 * <p>Usage: {@code java BundledCli <work-dir>}
 */
public class BundledCli {
  public static void main(String[] args) throws Exception {
    File work = new File(args[0]);
    File target = new File(work, "java-subprocess.txt");
    final StringBuilder asked = new StringBuilder();
    AgentOptions options =
        new AgentOptions()
            .transport(TransportKind.SUBPROCESS)
            .model("mock-model")
            .cwd(work)
            .permissionMode(PermissionMode.DEFAULT)
            .canUseTool(
                (tool, input, context) -> {
                  asked.append(tool).append(' ');
                  return PermissionResult.allow();
                });
    String cli = options.getCliPath();
    if (!cli.equals(NativeBridge.Bundled.cliPath()) || !new File(cli).canExecute()) {
      throw new AssertionError("the subprocess would run " + cli + ", not the bundled dcl");
    }
    ResultMessage result = Agent.query("please FAKE_WRITE " + target, options, null);
    if (result.isError() || !asked.toString().equals("Write ") || !target.isFile()) {
      throw new AssertionError(
          "result error=" + result.isError() + ", canUseTool saw [" + asked + "], file " + target.isFile());
    }
    System.out.println(
        "ok: subprocess transport ran the bundled " + cli + " (" + Files.size(new File(cli).toPath()) + " bytes), Write allowed");
  }
}
