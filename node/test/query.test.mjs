// One-shot and streaming multi-turn queries, partial messages, the control methods, the
// entry points, and errors as the documented classes.
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";

import * as dcl from "../dist/esm/index.mjs";
import { HELLO, DONE_RE, Input, PKG, collect, collectSettled, mockOptions, results, sandbox, texts, toolUses } from "./helpers.mjs";

const { query } = dcl;

test("ESM and CommonJS entry points are one package", () => {
  const cjs = createRequire(import.meta.url)(PKG);
  assert.equal(cjs.query, dcl.query);
  assert.equal(cjs.InvalidOptionsError, dcl.InvalidOptionsError);
  assert.equal(typeof dcl.versions().dcl, "string");
});

test("one-shot: the mock model answers and the turn ends in a success result", async () => {
  const box = sandbox();
  const q = query({ prompt: "hi", options: mockOptions(box) });
  const ms = await collect(q);
  assert.equal(ms[0].type, "system");
  assert.equal(ms[0].subtype, "init");
  assert.equal(ms[0].cwd, box.cwd);
  assert.deepEqual(texts(ms), [HELLO]);
  const [r] = results(ms);
  assert.equal(r.subtype, "success");
  assert.equal(r.is_error, false);
  assert.equal(r.result, HELLO);
  assert.equal(ms.at(-1), r);
  assert.match(r.session_id, /^[0-9a-f-]{36}$/);
});

test("streaming input: two prompts, two turns on one session, in order", async () => {
  const box = sandbox();
  const input = new Input();
  const q = query({ prompt: input, options: mockOptions(box, { allowedTools: ["Bash"] }) });
  input.push("hello");
  const seen = [];
  for await (const m of q) {
    seen.push(m);
    if (m.type === "result" && results(seen).length === 1) input.push("please FAKE_BASH");
    if (m.type === "result" && results(seen).length === 2) input.close();
  }
  const rs = results(seen);
  assert.equal(rs.length, 2);
  assert.equal(rs[0].result, HELLO);
  assert.match(rs[1].result, DONE_RE);
  assert.equal(rs[0].session_id, rs[1].session_id);
  assert.equal(toolUses(seen)[0].name, "Bash");
  const toolResult = seen.find((m) => m.type === "user" && Array.isArray(m.message.content));
  assert.equal(toolResult.message.content[0].content.trim(), "hi");
});

test("partial messages: includePartialMessages yields stream events before the assistant message", async () => {
  const box = sandbox();
  const ms = await collect(query({ prompt: "hi", options: mockOptions(box, { includePartialMessages: true }) }));
  const events = ms.filter((m) => m.type === "stream_event");
  assert.ok(events.length >= 3, `stream events: ${events.length}`);
  const kinds = events.map((e) => e.event.type);
  assert.equal(kinds[0], "message_start");
  assert.ok(kinds.includes("content_block_delta"));
  const deltas = events.filter((e) => e.event.type === "content_block_delta").map((e) => e.event.delta.text).join("");
  assert.equal(deltas, HELLO);
  assert.ok(ms.indexOf(events[0]) < ms.findIndex((m) => m.type === "assistant"));
  const none = await collect(query({ prompt: "hi", options: mockOptions(sandbox()) }));
  assert.equal(none.filter((m) => m.type === "stream_event").length, 0);
});

test("control methods: initialize data, mcp status, context usage, model and mode changes", async () => {
  const box = sandbox();
  const input = new Input();
  const q = query({ prompt: input, options: mockOptions(box) });
  const commands = await q.supportedCommands();
  assert.ok(Array.isArray(commands));
  const models = await q.supportedModels();
  assert.ok(models.length > 0 && models.every((m) => typeof m.value === "string"), JSON.stringify(models));
  assert.ok(typeof (await q.initializationResult()) === "object");
  assert.deepEqual(await q.mcpServerStatus(), []);
  const usage = await q.getContextUsage();
  assert.ok(Array.isArray(usage.categories), JSON.stringify(usage).slice(0, 200));
  const mode = await q.setPermissionMode("acceptEdits");
  assert.equal(mode.mode, "acceptEdits");
  await q.setModel("mock-model");
  await q.setMaxThinkingTokens(1024);
  await assert.rejects(q.setPermissionMode("sideways"), dcl.ControlRequestError);
  await assert.rejects(q.rewindFiles("no-such-message"), (e) => e instanceof dcl.ControlRequestError && e.subtype === "rewind_files");
  input.push("hi");
  input.close();
  const ms = await collect(q);
  assert.equal(results(ms)[0].result, HELLO);
  // The mode change took effect: the session reports it on its next init.
  assert.equal(ms.find((m) => m.type === "system" && m.subtype === "init").permissionMode, "acceptEdits");
});

test("bad options: InvalidOptionsError names the option (dcl's check and the package's)", async () => {
  const box = sandbox();
  const a = await collectSettled(query({ prompt: "hi", options: mockOptions(box, { maxTurns: "three" }) }));
  assert.ok(a.error instanceof dcl.InvalidOptionsError, String(a.error));
  assert.ok(a.error instanceof dcl.CLIConnectionError);
  assert.equal(a.error.option, "maxTurns");
  assert.deepEqual(a.messages, []);
  const b = await collectSettled(query({ prompt: "hi", options: mockOptions(box, { modle: "x" }) }));
  assert.ok(b.error instanceof dcl.InvalidOptionsError);
  assert.equal(b.error.option, "modle");
  const c = await collectSettled(query({ prompt: "hi", options: mockOptions(box, { cwd: path.join(box.root, "missing") }) }));
  assert.ok(c.error instanceof dcl.InvalidOptionsError, String(c.error));
  assert.equal(c.error.option, "cwd");
  // A session that cannot be resumed is an error result after initialize, as with the CLI.
  const d = await collectSettled(query({ prompt: "hi", options: mockOptions(box, { resume: "abc" }) }));
  assert.ok(d.error instanceof dcl.ResultError, String(d.error));
  assert.match(JSON.stringify(results(d.messages)[0]), /abc/);
  // A well-formed id no home holds: the TS SDK's startup failure reason, on the result and the error.
  const missing = "0e0e0e0e-1111-4222-8333-444455556666";
  const e = await collectSettled(query({ prompt: "hi", options: mockOptions(box, { resume: missing }) }));
  assert.ok(e.error instanceof dcl.ResultError, String(e.error));
  assert.equal(results(e.messages)[0].startup_failure_reason, "resume_target_not_found");
  assert.equal(e.error.startupFailureReason, "resume_target_not_found");
});

test("an error result is yielded, then thrown as ResultError", async () => {
  const box = sandbox();
  const { messages, error } = await collectSettled(query({ prompt: "FAKE_ERR400", options: mockOptions(box) }));
  const [r] = results(messages);
  assert.equal(r.is_error, true);
  assert.ok(error instanceof dcl.ResultError, String(error));
  assert.ok(error instanceof dcl.ProcessError);
  assert.equal(error.result, r);
  assert.equal(error.startupFailureReason, undefined); // the session started
  assert.match(error.message, /prompt is invalid|400/);
});

test("options dcl does not act on are reported as a warning, not dropped silently", async () => {
  const box = sandbox();
  const warnings = [];
  const onWarning = (w) => warnings.push(w);
  process.on("warning", onWarning);
  try {
    const ms = await collect(query({ prompt: "hi", options: mockOptions(box, { sandbox: { enabled: true } }) }));
    assert.equal(results(ms)[0].result, HELLO);
    await new Promise((r) => setImmediate(r));
  } finally {
    process.off("warning", onWarning);
  }
  assert.ok(warnings.some((w) => w.code === "DCL_IGNORED_OPTIONS" && /sandbox/.test(w.message)), warnings.map(String).join("; "));
});

test("a Rust panic reaches JavaScript as an Error, and the process goes on", async () => {
  const native = createRequire(import.meta.url)(path.join(PKG, "native", "binding.cjs"));
  assert.throws(() => native._panicForTest("sync"), (e) => e instanceof Error && /panic/i.test(e.message));
  await assert.rejects(Promise.resolve(native._panicForTest("async")), (e) => e instanceof Error && /test panic on the runtime/.test(e.message));
  const ms = await collect(query({ prompt: "hi", options: mockOptions(sandbox()) }));
  assert.equal(results(ms)[0].result, HELLO);
});

test("the protocol types are generated and shipped", () => {
  const d = fs.readFileSync(path.join(PKG, "dist", "cjs", "generated", "protocol.d.ts"), "utf8");
  assert.match(d, /export interface CanUseToolRequest/);
  assert.match(d, /export type Message =/);
});

test("Qoder's option names are aliases: planMode, allowDangerouslySkipPermissions", async () => {
  const plan = await collect(query({ prompt: "hi", options: mockOptions(sandbox(), { planMode: true }) }));
  assert.equal(plan[0].permissionMode, "plan");
  const box = sandbox();
  const yolo = await collect(query({ prompt: "FAKE_WRITE out.txt", options: mockOptions(box, { allowDangerouslySkipPermissions: true }) }));
  assert.equal(yolo[0].permissionMode, "bypassPermissions");
  assert.equal(fs.readFileSync(path.join(box.cwd, "out.txt"), "utf8"), "hello\n");
});
