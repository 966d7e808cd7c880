package nexus.io.agent.sdk.json;

/** A type that {@link Json#write(Object)} can write: it says which plain value stands for it. */
public interface JsonValue {
  /**
   * @return a value {@link Json#write(Object)} accepts (usually a {@code Map})
   */
  Object toJsonValue();
}
