package nexus.io.agent.sdk;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import nexus.io.agent.sdk.message.Message;
import nexus.io.agent.sdk.message.ToolResultBlock;
import nexus.io.agent.sdk.message.ContentBlock;
import nexus.io.agent.sdk.message.UserMessage;

/** Shared helpers: every session runs on dcl's built-in mock model in a fresh directory. */
final class TestSupport {
  private TestSupport() {}

  static final String MOCK = "mock-model";

  static AgentOptions opts(TransportKind kind, Path dir) {
    return new AgentOptions()
        .transport(kind)
        .model(MOCK)
        .cwd(real(dir))
        .settingSources(); // no settings files from the machine running the tests
  }

  static String real(Path dir) {
    try {
      return dir.toFile().getCanonicalPath();
    } catch (IOException e) {
      return dir.toAbsolutePath().toString();
    }
  }

  static File file(Path dir, String name) {
    return new File(real(dir), name);
  }

  static <T> List<T> ofType(List<Message> messages, Class<T> cls) {
    List<T> out = new ArrayList<T>();
    for (Message m : messages) {
      if (cls.isInstance(m)) {
        out.add(cls.cast(m));
      }
    }
    return out;
  }

  static List<ToolResultBlock> toolResults(List<Message> messages) {
    List<ToolResultBlock> out = new ArrayList<ToolResultBlock>();
    for (UserMessage u : ofType(messages, UserMessage.class)) {
      for (ContentBlock b : u.getContent()) {
        if (b instanceof ToolResultBlock) {
          out.add((ToolResultBlock) b);
        }
      }
    }
    return out;
  }
}
