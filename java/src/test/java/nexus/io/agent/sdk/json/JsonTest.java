package nexus.io.agent.sdk.json;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {
  @Test
  void parsesEveryKindOfValue() {
    Map<String, Object> m =
        Json.parseObject(
            " {\"s\":\"a\\\"b\\\\c\\n\\u00e9\\ud83d\\ude00\",\"i\":-12,\"big\":123456789012345678901,"
                + "\"d\":1.5e2,\"t\":true,\"f\":false,\"n\":null,\"a\":[1,[],{}],\"o\":{\"k\":\"v\"}} ");
    assertEquals("a\"b\\c\né\uD83D\uDE00", m.get("s"));
    assertEquals(-12L, m.get("i"));
    assertEquals(new BigInteger("123456789012345678901"), m.get("big"));
    assertEquals(150.0, m.get("d"));
    assertEquals(Boolean.TRUE, m.get("t"));
    assertEquals(Boolean.FALSE, m.get("f"));
    assertTrue(m.containsKey("n") && m.get("n") == null);
    assertEquals(3, ((List<?>) m.get("a")).size());
    assertEquals("v", ((Map<?, ?>) m.get("o")).get("k"));
    assertEquals(Arrays.asList("s", "i", "big", "d", "t", "f", "n", "a", "o"), Arrays.asList(m.keySet().toArray()));
  }

  @Test
  void writesWhatItParses() {
    String text = "{\"s\":\"q\\\"\\\\\\n\\t\\u0001\",\"l\":[1,2.5,true,null],\"m\":{}}";
    assertEquals(text, Json.write(Json.parse(text)));
    Map<String, Object> m = new LinkedHashMap<String, Object>();
    m.put("x", 3.0);
    m.put("y", new Object[] {"a", 'b'});
    assertEquals("{\"x\":3,\"y\":[\"a\",\"b\"]}", Json.write(m));
  }

  @Test
  void lineSeparatorsAreEscaped() {
    String out = Json.write("a\u2028b\u2029c");
    assertEquals("\"a\\u2028b\\u2029c\"", out);
    assertEquals("a\u2028b\u2029c", Json.parse(out));
  }

  @Test
  void rejectsMalformedText() {
    String[] bad = {
      "", "{", "[1,]", "{\"a\" 1}", "{\"a\":1,}", "01", "1.", "-", "1e", "\"abc", "\"\\x\"", "tru",
      "nul", "{a:1}", "[1 2]", "\"\u0001\"", "1 2", "\"\\u12\""
    };
    for (String s : bad) {
      assertThrows(JsonException.class, () -> Json.parse(s), s);
    }
  }

  @Test
  void deepNestingIsRefusedNotAStackOverflow() {
    StringBuilder deep = new StringBuilder();
    for (int i = 0; i < 100_000; i++) {
      deep.append('[');
    }
    JsonException e = assertThrows(JsonException.class, () -> Json.parse(deep.toString()));
    assertTrue(e.getMessage().contains("nested deeper"), e.getMessage());
    // The positive twin: nesting within the limit parses.
    StringBuilder ok = new StringBuilder();
    for (int i = 0; i < 100; i++) {
      ok.append('[');
    }
    for (int i = 0; i < 100; i++) {
      ok.append(']');
    }
    assertTrue(Json.parse(ok.toString()) instanceof List);
  }

  @Test
  void refusesValuesJsonCannotHold() {
    assertThrows(JsonException.class, () -> Json.write(Double.NaN));
    assertThrows(JsonException.class, () -> Json.write(new Object()));
    List<Object> cycle = new java.util.ArrayList<Object>();
    cycle.add(cycle);
    assertThrows(JsonException.class, () -> Json.write(cycle));
  }
}
