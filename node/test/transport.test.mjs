// @anthropic-ai/claude-agent-sdk's own query(), in-process through `spawnClaudeCodeProcess:
// spawnInProcess`: each SDK option is set and seen to take effect, and no process starts.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { z } from "zod";

import * as sdk from "@anthropic-ai/claude-agent-sdk";
import { spawnInProcess } from "../dist/esm/index.mjs";
import { DONE_RE, HELLO, collectSettled, isCliProcess, results, sandbox, toolUses, watchChildren } from "./helpers.mjs";

/** Runs the SDK's query in-process; every spawn it asks for is recorded. */
async function run(prompt, box, options = {}) {
  const spawns = [];
  const spawnClaudeCodeProcess = (o) => {
    spawns.push(o);
    return spawnInProcess(o);
  };
  const full = {
    model: "mock-model",
    cwd: box.cwd,
    // A path that does not exist: if the SDK ever started a process, it would fail.
    pathToClaudeCodeExecutable: path.join(box.root, "no-such-dcl"),
    spawnClaudeCodeProcess,
    ...options,
    env: { ...process.env, HOME: box.home, ...(options.env ?? {}) },
  };
  const { value, children } = await watchChildren(() => collectSettled(sdk.query({ prompt, options: full })));
  assert.ok(!children.some(isCliProcess), `children: ${children}`);
  assert.equal(spawns.length, 1);
  return { ...value, spawn: spawns[0] };
}

const init = (ms) => ms.find((m) => m.type === "system" && m.subtype === "init");
const toolResults = (ms) => ms.filter((m) => m.type === "user" && Array.isArray(m.message.content)).map((m) => m.message.content[0]);

test("model, cwd and a plain turn", async () => {
  const box = sandbox();
  const { messages, error } = await run("hi", box);
  assert.equal(error, undefined, String(error));
  assert.equal(init(messages).model, "mock-model");
  assert.equal(init(messages).cwd, box.cwd);
  assert.equal(results(messages)[0].result, HELLO);
});

test("permissionMode acceptEdits: the write runs unasked in cwd", async () => {
  const box = sandbox();
  const { messages } = await run("FAKE_WRITE out.txt", box, { permissionMode: "acceptEdits" });
  assert.equal(init(messages).permissionMode, "acceptEdits");
  assert.equal(fs.readFileSync(path.join(box.cwd, "out.txt"), "utf8"), "hello\n");
  // Its twin in default mode with no canUseTool: asked, and nobody answers yes.
  const twin = sandbox();
  const denied = await run("FAKE_WRITE out.txt", twin);
  assert.equal(fs.existsSync(path.join(twin.cwd, "out.txt")), false);
  assert.equal(results(denied.messages)[0].permission_denials.length, 1);
});

test("allowedTools, disallowedTools and tools shape the tool set", async () => {
  const box = sandbox();
  const allowed = await run("FAKE_TOUCH", box, { allowedTools: ["Bash"] });
  assert.equal(fs.existsSync(path.join(box.cwd, "made.txt")), true);
  assert.match(results(allowed.messages)[0].result, DONE_RE);
  const off = await run("hi", sandbox(), { disallowedTools: ["Bash"] });
  assert.ok(!init(off.messages).tools.includes("Bash"));
  assert.ok(init(off.messages).tools.includes("Read"));
  const only = await run("hi", sandbox(), { tools: ["Read", "Glob"] });
  assert.deepEqual([...init(only.messages).tools].sort(), ["Glob", "Read"]);
});

test("systemPrompt reaches the model (more input tokens), maxTurns stops the loop", async () => {
  const box = sandbox();
  const plain = await run("hi", box);
  const long = await run("hi", box, { systemPrompt: "You are terse. ".repeat(200) });
  const tokens = (ms) => results(ms)[0].usage.input_tokens;
  assert.ok(tokens(long.messages) >= tokens(plain.messages) + 600, `${tokens(plain.messages)} -> ${tokens(long.messages)}`);
  const capped = await run("FAKE_BASH", sandbox(), { allowedTools: ["Bash"], maxTurns: 1 });
  assert.equal(results(capped.messages)[0].subtype, "error_max_turns");
});

test("includePartialMessages, env, additionalDirectories and sessionId", async () => {
  const box = sandbox();
  const partial = await run("hi", box, { includePartialMessages: true });
  assert.ok(partial.messages.some((m) => m.type === "stream_event"));
  const env = await run('FAKE_TOOL Bash {"command":"echo $DCL_TRANSPORT_PROBE"}', box, {
    allowedTools: ["Bash"],
    env: { DCL_TRANSPORT_PROBE: "probe-42" },
  });
  assert.equal(toolResults(env.messages)[0].content.trim(), "probe-42");
  const other = sandbox();
  fs.writeFileSync(path.join(other.cwd, "f.txt"), "outside\n");
  const dirs = await run(`FAKE_READ ${path.join(other.cwd, "f.txt")}`, box, { additionalDirectories: [other.cwd] });
  assert.match(JSON.stringify(toolResults(dirs.messages)[0].content), /outside/);
  assert.equal(results(dirs.messages)[0].permission_denials.length, 0);
  const id = "4c1b7f3e-2a9d-4e8f-9b6a-0d5e3c2b1a90";
  const named = await run("hi", box, { sessionId: id });
  assert.equal(init(named.messages).session_id, id);
});

test("canUseTool, hooks and an SDK MCP server: the SDK answers them over the in-process session", async () => {
  const box = sandbox();
  const asked = [];
  const hooked = [];
  const app = sdk.createSdkMcpServer({
    name: "app",
    tools: [sdk.tool("server_time", "time", {}, async () => ({ content: [{ type: "text", text: "teatime" }] }))],
  });
  const { messages } = await run("FAKE_WRITE out.txt", box, {
    canUseTool: async (name, input) => {
      asked.push(name);
      return { behavior: "allow", updatedInput: { ...input, content: "via the sdk\n" } };
    },
    hooks: { PreToolUse: [{ hooks: [async (input) => (hooked.push(input.tool_name), {})] }] },
  });
  assert.deepEqual(asked, ["Write"]);
  assert.deepEqual(hooked, ["Write"]);
  assert.equal(fs.readFileSync(path.join(box.cwd, "out.txt"), "utf8"), "via the sdk\n");
  assert.match(results(messages)[0].result, DONE_RE);
  const mcp = await run("what time is it", sandbox(), { mcpServers: { app }, allowedTools: ["mcp__app__server_time"] });
  assert.equal(toolUses(mcp.messages)[0].name, "mcp__app__server_time");
  assert.match(results(mcp.messages)[0].result, /teatime/);
  void z;
});

test("abortController: the SDK's AbortError, the session is stopped", async () => {
  const box = sandbox();
  const abortController = new AbortController();
  setTimeout(() => abortController.abort(), 300);
  const t0 = Date.now();
  const { error, messages } = await run("FAKE_SLOW", box, { abortController });
  assert.ok(error instanceof sdk.AbortError, String(error));
  // The SDK may still pass on the cancelled turn's result, as from a killed CLI.
  assert.ok(results(messages).every((r) => r.subtype !== "success"), JSON.stringify(results(messages)));
  assert.ok(Date.now() - t0 < 3500);
});

test("a bad flag value fails the SDK's query with dcl's message, as the CLI would", async () => {
  const box = sandbox();
  const { error } = await run("hi", box, { extraArgs: { "max-turns": "many" } });
  assert.ok(error instanceof Error);
  assert.match(String(error.message), /exit|max-turns|code 1/i);
});
