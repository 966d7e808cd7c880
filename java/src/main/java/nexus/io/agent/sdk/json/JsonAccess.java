package nexus.io.agent.sdk.json;

import java.util.Collections;
import java.util.List;
import java.util.Map;

/** Typed, null-tolerant reads of parsed JSON values (a wrong type reads as absent). */
public final class JsonAccess {
  private JsonAccess() {}

  /**
   * @param map an object, or null
   * @param key the member
   * @return the member if it is a string, else null
   */
  public static String string(Map<String, Object> map, String key) {
    Object v = map == null ? null : map.get(key);
    return v instanceof String ? (String) v : null;
  }

  /**
   * @param map an object, or null
   * @param key the member
   * @return the member if it is an object, else null
   */
  @SuppressWarnings("unchecked")
  public static Map<String, Object> object(Map<String, Object> map, String key) {
    Object v = map == null ? null : map.get(key);
    return v instanceof Map ? (Map<String, Object>) v : null;
  }

  /**
   * @param map an object, or null
   * @param key the member
   * @return the member if it is an array, else an empty list
   */
  @SuppressWarnings("unchecked")
  public static List<Object> array(Map<String, Object> map, String key) {
    Object v = map == null ? null : map.get(key);
    return v instanceof List ? (List<Object>) v : Collections.emptyList();
  }

  /**
   * @param map an object, or null
   * @param key the member
   * @param fallback returned when the member is not a number
   * @return the member as a long
   */
  public static long number(Map<String, Object> map, String key, long fallback) {
    Object v = map == null ? null : map.get(key);
    return v instanceof Number ? ((Number) v).longValue() : fallback;
  }

  /**
   * @param map an object, or null
   * @param key the member
   * @param fallback returned when the member is not a number
   * @return the member as a double
   */
  public static double decimal(Map<String, Object> map, String key, double fallback) {
    Object v = map == null ? null : map.get(key);
    return v instanceof Number ? ((Number) v).doubleValue() : fallback;
  }

  /**
   * @param map an object, or null
   * @param key the member
   * @param fallback returned when the member is not a boolean
   * @return the member as a boolean
   */
  public static boolean bool(Map<String, Object> map, String key, boolean fallback) {
    Object v = map == null ? null : map.get(key);
    return v instanceof Boolean ? (Boolean) v : fallback;
  }
}
