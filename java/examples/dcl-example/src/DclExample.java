import nexus.io.agent.sdk.Agent;
import nexus.io.agent.sdk.AgentOptions;
import nexus.io.agent.sdk.PermissionMode;
import nexus.io.agent.sdk.message.ResultMessage;
import nexus.io.agent.sdk.permission.PermissionResult;

public class DclExample {
  public static void main(String[] args) {
    AgentOptions options = new AgentOptions()
        .cliPath("dcl")
        .model("deepseek-flash")
        .permissionMode(PermissionMode.DEFAULT)
        .canUseTool((tool, input, context) -> "Bash".equals(tool)
            ? PermissionResult.deny("Bash is disabled")
            : PermissionResult.allow());
    ResultMessage result = Agent.query("总结 README.md", options, null);
    System.out.println(result.getResult());
  }
}
