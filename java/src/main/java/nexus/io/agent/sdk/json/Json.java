package nexus.io.agent.sdk.json;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small, strict JSON (RFC 8259) reader and writer.
 *
 * <p>Hand-written because the SDK targets Java 8 with no third-party runtime dependency, and
 * the JDK has no JSON API. Values map to plain Java types: objects to {@code
 * LinkedHashMap<String, Object>} (key order kept), arrays to {@code ArrayList<Object>}, strings
 * to {@code String}, integers to {@code Long} (or {@code BigInteger} when they do not fit),
 * other numbers to {@code Double}, {@code true}/{@code false} to {@code Boolean}, {@code null}
 * to {@code null}. Nesting deeper than {@value #MAX_DEPTH} levels is refused, so hostile input
 * cannot overflow the stack.
 */
public final class Json {
  /** The deepest nesting {@link #parse} accepts. */
  public static final int MAX_DEPTH = 512;

  private Json() {}

  /**
   * Parses one JSON text.
   *
   * @param text the JSON text; surrounding whitespace is allowed, anything else after the
   *     value is an error
   * @return the value, as described in the class comment
   * @throws JsonException when the text is not valid JSON
   */
  public static Object parse(String text) {
    if (text == null) {
      throw new JsonException("null is not JSON text", -1);
    }
    Reader r = new Reader(text);
    r.skipSpace();
    Object value = r.value(0);
    r.skipSpace();
    if (r.pos != text.length()) {
      throw new JsonException("unexpected text after the JSON value", r.pos);
    }
    return value;
  }

  /**
   * Parses a JSON text that must be an object.
   *
   * @param text the JSON text
   * @return the object's members, in order
   * @throws JsonException when the text is not valid JSON or not an object
   */
  @SuppressWarnings("unchecked")
  public static Map<String, Object> parseObject(String text) {
    Object v = parse(text);
    if (!(v instanceof Map)) {
      throw new JsonException("expected a JSON object", 0);
    }
    return (Map<String, Object>) v;
  }

  /**
   * Writes a value as compact JSON. Accepts {@code Map} (keys via {@code String.valueOf}),
   * {@code Collection}, {@code Object[]}, {@code CharSequence}, {@code Number}, {@code Boolean},
   * {@code Character}, {@link JsonValue} and {@code null}. U+2028 and U+2029 are escaped so the
   * text is safe inside JavaScript and on line-oriented transports.
   *
   * @param value the value
   * @return the JSON text (one line: every control character is escaped)
   * @throws JsonException for other types, non-finite numbers, or cycles deeper than {@value
   *     #MAX_DEPTH}
   */
  public static String write(Object value) {
    StringBuilder sb = new StringBuilder(64);
    write(sb, value, 0);
    return sb.toString();
  }

  /**
   * Appends a value as compact JSON; see {@link #write(Object)}.
   *
   * @param out where to append
   * @param value the value
   */
  public static void write(StringBuilder out, Object value) {
    write(out, value, 0);
  }

  /**
   * Appends a string as a JSON string literal (with quotes).
   *
   * @param out where to append
   * @param s the string
   */
  public static void quote(StringBuilder out, CharSequence s) {
    out.append('"');
    for (int i = 0, n = s.length(); i < n; i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"':
          out.append("\\\"");
          break;
        case '\\':
          out.append("\\\\");
          break;
        case '\n':
          out.append("\\n");
          break;
        case '\r':
          out.append("\\r");
          break;
        case '\t':
          out.append("\\t");
          break;
        case '\b':
          out.append("\\b");
          break;
        case '\f':
          out.append("\\f");
          break;
        default:
          if (c < 0x20 || c == '\u2028' || c == '\u2029') {
            out.append(String.format("\\u%04x", (int) c));
          } else {
            out.append(c);
          }
      }
    }
    out.append('"');
  }

  private static void write(StringBuilder sb, Object value, int depth) {
    if (depth > MAX_DEPTH) {
      throw new JsonException("value nested deeper than " + MAX_DEPTH + " levels (a cycle?)", -1);
    }
    if (value == null) {
      sb.append("null");
    } else if (value instanceof CharSequence) {
      quote(sb, (CharSequence) value);
    } else if (value instanceof Boolean) {
      sb.append(((Boolean) value).booleanValue() ? "true" : "false");
    } else if (value instanceof Double || value instanceof Float) {
      double d = ((Number) value).doubleValue();
      if (Double.isNaN(d) || Double.isInfinite(d)) {
        throw new JsonException("JSON has no " + d, -1);
      }
      if (d == Math.rint(d) && Math.abs(d) < 1e15) {
        sb.append((long) d); // 3.0 as 3: the shorter form, and the same JSON number
      } else {
        sb.append(d);
      }
    } else if (value instanceof BigDecimal) {
      sb.append(((BigDecimal) value).toString());
    } else if (value instanceof Number) {
      sb.append(value.toString());
    } else if (value instanceof Character) {
      quote(sb, String.valueOf(value));
    } else if (value instanceof Map) {
      sb.append('{');
      boolean first = true;
      for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
        if (!first) {
          sb.append(',');
        }
        first = false;
        quote(sb, String.valueOf(e.getKey()));
        sb.append(':');
        write(sb, e.getValue(), depth + 1);
      }
      sb.append('}');
    } else if (value instanceof Collection) {
      sb.append('[');
      boolean first = true;
      for (Object item : (Collection<?>) value) {
        if (!first) {
          sb.append(',');
        }
        first = false;
        write(sb, item, depth + 1);
      }
      sb.append(']');
    } else if (value instanceof Object[]) {
      Object[] items = (Object[]) value;
      sb.append('[');
      for (int i = 0; i < items.length; i++) {
        if (i > 0) {
          sb.append(',');
        }
        write(sb, items[i], depth + 1);
      }
      sb.append(']');
    } else if (value instanceof JsonValue) {
      write(sb, ((JsonValue) value).toJsonValue(), depth + 1);
    } else {
      throw new JsonException("cannot write a " + value.getClass().getName() + " as JSON", -1);
    }
  }

  private static final class Reader {
    final String s;
    int pos;

    Reader(String s) {
      this.s = s;
    }

    JsonException error(String message) {
      return new JsonException(message, pos);
    }

    void skipSpace() {
      while (pos < s.length()) {
        char c = s.charAt(pos);
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
          pos++;
        } else {
          break;
        }
      }
    }

    Object value(int depth) {
      if (depth > MAX_DEPTH) {
        throw error("JSON nested deeper than " + MAX_DEPTH + " levels");
      }
      if (pos >= s.length()) {
        throw error("unexpected end of JSON text");
      }
      char c = s.charAt(pos);
      switch (c) {
        case '{':
          return object(depth);
        case '[':
          return array(depth);
        case '"':
          return string();
        case 't':
          literal("true");
          return Boolean.TRUE;
        case 'f':
          literal("false");
          return Boolean.FALSE;
        case 'n':
          literal("null");
          return null;
        default:
          if (c == '-' || (c >= '0' && c <= '9')) {
            return number();
          }
          throw error("unexpected character '" + c + "'");
      }
    }

    void literal(String word) {
      if (!s.startsWith(word, pos)) {
        throw error("expected " + word);
      }
      pos += word.length();
    }

    Map<String, Object> object(int depth) {
      pos++; // {
      Map<String, Object> out = new LinkedHashMap<String, Object>();
      skipSpace();
      if (pos < s.length() && s.charAt(pos) == '}') {
        pos++;
        return out;
      }
      while (true) {
        skipSpace();
        if (pos >= s.length() || s.charAt(pos) != '"') {
          throw error("expected a string key");
        }
        String key = string();
        skipSpace();
        if (pos >= s.length() || s.charAt(pos) != ':') {
          throw error("expected ':'");
        }
        pos++;
        skipSpace();
        out.put(key, value(depth + 1));
        skipSpace();
        if (pos >= s.length()) {
          throw error("unterminated object");
        }
        char c = s.charAt(pos++);
        if (c == '}') {
          return out;
        }
        if (c != ',') {
          pos--;
          throw error("expected ',' or '}'");
        }
      }
    }

    List<Object> array(int depth) {
      pos++; // [
      List<Object> out = new ArrayList<Object>();
      skipSpace();
      if (pos < s.length() && s.charAt(pos) == ']') {
        pos++;
        return out;
      }
      while (true) {
        skipSpace();
        out.add(value(depth + 1));
        skipSpace();
        if (pos >= s.length()) {
          throw error("unterminated array");
        }
        char c = s.charAt(pos++);
        if (c == ']') {
          return out;
        }
        if (c != ',') {
          pos--;
          throw error("expected ',' or ']'");
        }
      }
    }

    String string() {
      int start = ++pos; // opening quote
      // Fast path: no escapes.
      while (pos < s.length()) {
        char c = s.charAt(pos);
        if (c == '"') {
          return s.substring(start, pos++);
        }
        if (c == '\\' || c < 0x20) {
          break;
        }
        pos++;
      }
      StringBuilder sb = new StringBuilder(s.substring(start, pos));
      while (true) {
        if (pos >= s.length()) {
          throw error("unterminated string");
        }
        char c = s.charAt(pos++);
        if (c == '"') {
          return sb.toString();
        }
        if (c < 0x20) {
          pos--;
          throw error("control character in a string");
        }
        if (c != '\\') {
          sb.append(c);
          continue;
        }
        if (pos >= s.length()) {
          throw error("unterminated escape");
        }
        char e = s.charAt(pos++);
        switch (e) {
          case '"':
          case '\\':
          case '/':
            sb.append(e);
            break;
          case 'b':
            sb.append('\b');
            break;
          case 'f':
            sb.append('\f');
            break;
          case 'n':
            sb.append('\n');
            break;
          case 'r':
            sb.append('\r');
            break;
          case 't':
            sb.append('\t');
            break;
          case 'u':
            if (pos + 4 > s.length()) {
              throw error("short \\u escape");
            }
            int code = 0;
            for (int i = 0; i < 4; i++) {
              int d = Character.digit(s.charAt(pos + i), 16);
              if (d < 0) {
                throw error("bad \\u escape");
              }
              code = code * 16 + d;
            }
            pos += 4;
            sb.append((char) code);
            break;
          default:
            pos--;
            throw error("bad escape '\\" + e + "'");
        }
      }
    }

    Object number() {
      int start = pos;
      if (s.charAt(pos) == '-') {
        pos++;
      }
      if (pos >= s.length()) {
        throw error("bad number");
      }
      if (s.charAt(pos) == '0') {
        pos++;
      } else if (s.charAt(pos) >= '1' && s.charAt(pos) <= '9') {
        digits();
      } else {
        throw error("bad number");
      }
      boolean integral = true;
      if (pos < s.length() && s.charAt(pos) == '.') {
        integral = false;
        pos++;
        if (digits() == 0) {
          throw error("a number needs digits after '.'");
        }
      }
      if (pos < s.length() && (s.charAt(pos) == 'e' || s.charAt(pos) == 'E')) {
        integral = false;
        pos++;
        if (pos < s.length() && (s.charAt(pos) == '+' || s.charAt(pos) == '-')) {
          pos++;
        }
        if (digits() == 0) {
          throw error("a number needs digits in its exponent");
        }
      }
      String text = s.substring(start, pos);
      if (integral) {
        if (text.length() < 19) {
          return Long.valueOf(Long.parseLong(text));
        }
        BigInteger big = new BigInteger(text);
        return big.bitLength() < 64 ? (Object) Long.valueOf(big.longValue()) : big;
      }
      return Double.valueOf(Double.parseDouble(text));
    }

    int digits() {
      int start = pos;
      while (pos < s.length() && s.charAt(pos) >= '0' && s.charAt(pos) <= '9') {
        pos++;
      }
      return pos - start;
    }
  }
}
