// Abort and interrupt, sessions side by side (their own cwd each; 100 at once with one
// stalled callback), and no child process: everything runs in this process.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";

import { AbortError, ResultError, createSdkMcpServer, query, tool } from "../dist/esm/index.mjs";
import { DONE_RE, HELLO, collect, collectSettled, isCliProcess, mockOptions, results, sandbox, watchChildren } from "./helpers.mjs";

/** Set when the suite runs through the subprocess transport (node/ci.sh runs it both ways). */
const CHILD_TRANSPORT = Boolean(process.env.DCL_CLI_PATH);

test("interrupt() ends the running turn with error_during_execution", async () => {
  const box = sandbox();
  const q = query({ prompt: "FAKE_SLOW", options: mockOptions(box, { includePartialMessages: true }) });
  const seen = [];
  let answer;
  const { error } = await collectSettled(
    (async function* () {
      for await (const m of q) {
        seen.push(m);
        if (m.type === "stream_event" && m.event.type === "content_block_delta" && answer === undefined) {
          answer = await q.interrupt();
        }
        yield m;
      }
    })(),
  );
  assert.ok(answer !== undefined, "interrupt was answered");
  const [r] = results(seen);
  assert.equal(r.subtype, "error_during_execution");
  assert.equal(r.is_error, true);
  const words = seen.filter((m) => m.type === "stream_event" && m.event.type === "content_block_delta").length;
  assert.ok(words < 40, `the turn stopped early (${words} of 40 words)`);
  assert.ok(error instanceof ResultError, String(error));
});

test("abortController.abort() stops the session and the query throws AbortError", async () => {
  const box = sandbox();
  const abortController = new AbortController();
  const q = query({ prompt: "FAKE_SLOW", options: mockOptions(box, { abortController, includePartialMessages: true }) });
  const seen = [];
  const t0 = Date.now();
  const { error } = await collectSettled(
    (async function* () {
      for await (const m of q) {
        seen.push(m);
        if (m.type === "stream_event") abortController.abort();
        yield m;
      }
    })(),
  );
  assert.ok(error instanceof AbortError, String(error));
  assert.equal(results(seen).length, 0, "no result after an abort");
  assert.ok(Date.now() - t0 < 3500, "FAKE_SLOW would take 4 s; the abort cut it short");
  // Aborted before it starts: AbortError at once, nothing opened.
  const early = new AbortController();
  early.abort();
  const r = await collectSettled(query({ prompt: "hi", options: mockOptions(box, { abortController: early }) }));
  assert.ok(r.error instanceof AbortError);
});

test("two sessions with different cwd write into their own directories", async () => {
  const a = sandbox();
  const b = sandbox();
  const canUseTool = async (_n, input) => ({ behavior: "allow", updatedInput: input });
  const [ma, mb] = await Promise.all([
    collect(query({ prompt: "FAKE_WRITE out.txt", options: mockOptions(a, { canUseTool }) })),
    collect(query({ prompt: "FAKE_WRITE out.txt", options: mockOptions(b, { canUseTool }) })),
  ]);
  for (const [box, ms] of [[a, ma], [b, mb]]) {
    assert.equal(fs.readFileSync(path.join(box.cwd, "out.txt"), "utf8"), "hello\n");
    assert.deepEqual(fs.readdirSync(box.cwd), ["out.txt"]);
    assert.match(results(ms)[0].result, DONE_RE);
  }
  assert.notEqual(ma[0].session_id, mb[0].session_id);
});

test("100 concurrent sessions: one stalled callback stalls none of the others", async () => {
  const N = 100;
  let release;
  const gate = new Promise((r) => (release = r));
  const finished = [];
  const boxes = Array.from({ length: N }, () => sandbox());
  const { value: outcomes, children } = await watchChildren(async () => {
    const runs = boxes.map(async (box, i) => {
      const canUseTool = async (_n, input) => {
        if (i === 0) await gate; // held until every other session is done
        return { behavior: "allow", updatedInput: input };
      };
      const ms = await collect(query({ prompt: "FAKE_WRITE out.txt", options: mockOptions(box, { canUseTool }) }));
      finished.push(i);
      if (finished.length === N - 1) release();
      return ms;
    });
    return Promise.all(runs);
  });
  assert.equal(finished.length, N);
  assert.equal(finished.at(-1), 0, "the stalled session finished last");
  assert.ok(!finished.slice(0, -1).includes(0));
  for (let i = 0; i < N; i++) {
    assert.match(results(outcomes[i])[0].result, DONE_RE);
    assert.equal(fs.readFileSync(path.join(boxes[i].cwd, "out.txt"), "utf8"), "hello\n");
  }
  if (CHILD_TRANSPORT) {
    // The same test through the subprocess transport: the sessions ran in dcl children.
    assert.ok(children.length > 0 && children.every((c) => c === "dcl"), children.join(","));
  } else {
    assert.deepEqual(children, [], "no child process at any point");
  }
});

test("no dcl child process at any point: queries, callbacks, hooks and MCP all in-process", { skip: CHILD_TRANSPORT && "in-process only (DCL_CLI_PATH runs sessions in a dcl child)" }, async () => {
  const box = sandbox();
  const app = createSdkMcpServer({
    name: "app",
    tools: [tool("server_time", "time", {}, async () => ({ content: [{ type: "text", text: "noon" }] }))],
  });
  const { value, children } = await watchChildren(async () => {
    const a = await collect(query({ prompt: "hi", options: mockOptions(box) }));
    const b = await collect(
      query({
        prompt: "FAKE_WRITE out.txt",
        options: mockOptions(box, {
          canUseTool: async (_n, input) => ({ behavior: "allow", updatedInput: input }),
          hooks: { PostToolUse: [{ hooks: [async () => ({})] }] },
        }),
      }),
    );
    const c = await collect(query({ prompt: "what time is it", options: mockOptions(box, { mcpServers: { app }, allowedTools: ["mcp__app__server_time"] }) }));
    return [a, b, c];
  }, 2);
  assert.equal(results(value[0])[0].result, HELLO);
  assert.match(results(value[1])[0].result, DONE_RE);
  assert.match(results(value[2])[0].result, /noon/);
  assert.deepEqual(children, []);
  // The Bash tool's shell is a child of this process, as it would be of the dcl CLI: never a dcl.
  const withBash = await watchChildren(() => collect(query({ prompt: "FAKE_BASH", options: mockOptions(box, { allowedTools: ["Bash"] }) })), 1);
  assert.ok(!withBash.children.some(isCliProcess), withBash.children.join(","));
});
