package nexus.io.agent.sdk;

import nexus.io.agent.sdk.message.Message;

/** Receives each message of a turn as it arrives (the callback form of streaming). */
@FunctionalInterface
public interface MessageListener {
  /**
   * Called on the querying thread, in order, before {@link Agent#query} returns.
   *
   * @param message the message
   */
  void onMessage(Message message);
}
