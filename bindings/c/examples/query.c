/* A query on dcl's built-in mock model through the C ABI, with a permission callback:
 * the first Write is allowed (the file appears), the second denied (it does not), then a
 * session is closed while its callback is still pending. Exit 0 when all of that held.
 *
 *   cc -o query bindings/c/examples/query.c -Ibindings/c/include -Ltarget/debug -ldcl
 *   LD_LIBRARY_PATH=target/debug ./query
 *
 * Run under AddressSanitizer (with leak checking) by tests/c/run.sh in CI. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dcl.h"

static int failures = 0;
#define CHECK(cond, ...)                     \
  do {                                       \
    if (!(cond)) {                           \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);          \
      fprintf(stderr, "\n");                 \
      failures++;                            \
    }                                        \
  } while (0)

/* The value of "key" in a flat JSON object (good enough for ids; the caller frees). */
static char *json_string(const char *json, const char *key) {
  char pattern[64];
  snprintf(pattern, sizeof pattern, "\"%s\":\"", key);
  const char *at = strstr(json, pattern);
  if (!at) return NULL;
  at += strlen(pattern);
  const char *end = strchr(at, '"');
  if (!end) return NULL;
  size_t n = (size_t)(end - at);
  char *out = malloc(n + 1);
  memcpy(out, at, n);
  out[n] = 0;
  return out;
}

static DclSession *open_session(const char *cwd) {
  char options[1024];
  snprintf(options, sizeof options,
           "{\"model\":\"mock-model\",\"cwd\":\"%s\",\"permissionPromptTool\":\"stdio\","
           "\"persistSession\":false}",
           cwd);
  DclSession *s = NULL;
  char *error = NULL;
  int rc = dcl_open(options, -1, &s, &error);
  CHECK(rc == DCL_OK && s, "dcl_open: %s", error ? error : "?");
  dcl_string_free(error);
  char *id = NULL;
  rc = dcl_initialize(s, "{\"hooks\":[]}", 30000, &id, &error);
  CHECK(rc == DCL_OK && id, "dcl_initialize: %s", error ? error : "?");
  dcl_string_free(error);
  dcl_string_free(id);
  return s;
}

/* Sends a FAKE_WRITE of `file`, answers its permission request with `answer`, runs to the
 * result. Returns how many permission requests came. */
static int write_turn(DclSession *s, const char *file, const char *answer) {
  char line[256];
  snprintf(line, sizeof line,
           "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"FAKE_WRITE %s\"}}", file);
  char *error = NULL;
  int rc = dcl_send(s, line, &error);
  CHECK(rc == DCL_OK, "dcl_send: %s", error ? error : "?");
  dcl_string_free(error);
  int asked = 0;
  for (;;) {
    char *events = NULL;
    rc = dcl_next_events(s, 1, 30000, &events, &error);
    if (rc != DCL_OK) {
      CHECK(0, "dcl_next_events: rc %d %s", rc, error ? error : "");
      dcl_string_free(error);
      return asked;
    }
    int done = strstr(events, "\"type\":\"result\"") != NULL;
    if (strstr(events, "\"kind\":\"can_use_tool\"")) {
      asked++;
      char *id = json_string(events, "id");
      rc = dcl_respond(s, id, answer, &error);
      CHECK(rc == DCL_OK, "dcl_respond: %s", error ? error : "?");
      dcl_string_free(error);
      error = NULL;
      /* Answered once: a second answer is a clean error. */
      rc = dcl_respond(s, id, answer, &error);
      CHECK(rc == DCL_ERROR && error && strstr(error, "DCL_NOT_PENDING"), "second answer: %s",
            error ? error : "?");
      dcl_string_free(error);
      error = NULL;
      free(id);
    }
    dcl_string_free(events);
    if (done) return asked;
  }
}

int main(void) {
  CHECK(dcl_abi_version() == DCL_ABI_VERSION, "ABI version");
  char dir[] = "/tmp/dcl-c-XXXXXX";
  CHECK(mkdtemp(dir) != NULL, "mkdtemp");
  char path[512];

  DclSession *s = open_session(dir);
  char *sid = dcl_session_id(s);
  CHECK(sid && strlen(sid) == 36, "session id");
  dcl_string_free(sid);

  CHECK(write_turn(s, "allowed.txt",
                   "{\"behavior\":\"allow\",\"updatedInput\":{\"file_path\":\"allowed.txt\","
                   "\"content\":\"hello\\n\"}}") == 1,
        "one permission request for the allowed write");
  snprintf(path, sizeof path, "%s/allowed.txt", dir);
  CHECK(access(path, F_OK) == 0, "allowed.txt was written");

  CHECK(write_turn(s, "denied.txt", "{\"behavior\":\"deny\",\"message\":\"not here\"}") == 1,
        "one permission request for the denied write");
  snprintf(path, sizeof path, "%s/denied.txt", dir);
  CHECK(access(path, F_OK) != 0, "denied.txt was not written");

  /* A bad option is an error naming it, and no handle. */
  DclSession *bad = NULL;
  char *error = NULL;
  int rc = dcl_open("{\"model\":\"mock-model\",\"maxTurns\":-1}", -1, &bad, &error);
  CHECK(rc == DCL_ERROR && bad == NULL && error && strstr(error, "maxTurns"), "bad options: %s",
        error ? error : "?");
  dcl_string_free(error);
  dcl_end_input(s);
  dcl_close(s);

  /* Closed with a callback pending: nothing leaks, nothing is written. */
  DclSession *p = open_session(dir);
  rc = dcl_send(p, "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"FAKE_WRITE pending.txt\"}}", NULL);
  CHECK(rc == DCL_OK, "send");
  for (int seen = 0; !seen;) {
    char *events = NULL;
    rc = dcl_next_events(p, 16, 30000, &events, NULL);
    if (rc != DCL_OK) break;
    seen = strstr(events, "\"kind\":\"can_use_tool\"") != NULL;
    dcl_string_free(events);
  }
  dcl_close(p);
  snprintf(path, sizeof path, "%s/pending.txt", dir);
  CHECK(access(path, F_OK) != 0, "pending.txt was not written");

  if (failures) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("ok: allow, deny, bad options, close with a pending callback\n");
  return 0;
}
