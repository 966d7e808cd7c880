package nexus.io.agent.sdk;

import nexus.io.agent.sdk.internal.Session;
import nexus.io.agent.sdk.message.Message;
import nexus.io.agent.sdk.message.ResultMessage;

/**
 * One-shot queries against dcl. Each call opens a session, sends the prompt, delivers the
 * turn's messages and closes the session. For a conversation use {@link AgentClient}.
 *
 * <pre>{@code
 * ResultMessage result = Agent.query("Summarise README.md", new AgentOptions().model("sonnet"), null);
 * System.out.println(result.getResult());
 * }</pre>
 *
 * <p>The transport is in-process (JNI) when the native library loads, else the {@code dcl}
 * subprocess; see {@link AgentOptions#transport(TransportKind)}.
 */
public final class Agent {
  private Agent() {}

  /**
   * Runs one prompt to its result.
   *
   * @param prompt the prompt
   * @param options the options (null: defaults)
   * @return the turn's result
   * @throws ResultErrorException when the turn ends in an error result
   * @throws AgentConnectionException when the session cannot open or dies
   */
  public static ResultMessage query(String prompt, AgentOptions options) {
    return query(prompt, options, null);
  }

  /**
   * Runs one prompt to its result, handing every message to {@code listener} as it arrives.
   *
   * @param prompt the prompt
   * @param options the options (null: defaults)
   * @param listener receives each message, in order; may be null
   * @return the turn's result
   * @throws ResultErrorException when the turn ends in an error result (after every message has
   *     been delivered)
   * @throws AgentConnectionException when the session cannot open or dies
   */
  public static ResultMessage query(String prompt, AgentOptions options, MessageListener listener) {
    ResultMessage result = null;
    try (MessageStream stream = stream(prompt, options)) {
      for (Message m : stream) {
        if (listener != null) {
          listener.onMessage(m);
        }
        if (m instanceof ResultMessage) {
          result = (ResultMessage) m;
        }
      }
    }
    if (result == null) {
      throw new AgentConnectionException("the session ended without a result");
    }
    if (result.isError()) {
      throw new ResultErrorException(result);
    }
    return result;
  }

  /**
   * Starts one prompt and returns its messages as they arrive.
   *
   * @param prompt the prompt
   * @param options the options (null: defaults)
   * @return the messages; close it when done early
   * @throws AgentConnectionException when the session cannot open
   */
  public static MessageStream stream(String prompt, AgentOptions options) {
    Session host = Session.open(options != null ? options : new AgentOptions());
    try {
      host.sendUser(prompt, "");
      boolean answers = host.isBidirectional();
      if (!answers) {
        host.endInput(); // nothing will need answering: let the session finish by itself
      }
      // Callbacks must stay answerable until the result; the stream ends input then.
      return new MessageStream(host, answers);
    } catch (RuntimeException e) {
      host.close();
      throw e;
    }
  }

  /**
   * Opens a multi-turn session.
   *
   * @param options the options (null: defaults)
   * @return the connected client; close it when done
   */
  public static AgentClient connect(AgentOptions options) {
    AgentClient c = new AgentClient(options);
    c.connect();
    return c;
  }
}
