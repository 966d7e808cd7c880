// canUseTool (allow / deny / modified input) with the files they leave, a blocking hook,
// and in-process MCP tools (zod schemas) called by the model.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { z } from "zod";

import { createSdkMcpServer, query, tool } from "../dist/esm/index.mjs";
import { DONE_RE, collect, mockOptions, results, sandbox, toolUses } from "./helpers.mjs";

const read = (p) => fs.readFileSync(p, "utf8");

test("canUseTool allow: the write happens, the callback saw the tool and its input", async () => {
  const box = sandbox();
  const asked = [];
  const canUseTool = async (name, input, opts) => {
    asked.push({ name, input, toolUseID: opts.toolUseID, signal: opts.signal });
    return { behavior: "allow", updatedInput: input };
  };
  const ms = await collect(query({ prompt: "FAKE_WRITE out.txt", options: mockOptions(box, { canUseTool }) }));
  assert.equal(asked.length, 1);
  assert.equal(asked[0].name, "Write");
  assert.deepEqual(asked[0].input, { file_path: "out.txt", content: "hello\n" });
  assert.equal(asked[0].toolUseID, toolUses(ms)[0].id);
  assert.ok(asked[0].signal instanceof AbortSignal);
  assert.equal(read(path.join(box.cwd, "out.txt")), "hello\n");
  assert.match(results(ms)[0].result, DONE_RE);
  assert.deepEqual(results(ms)[0].permission_denials, []);
});

test("canUseTool deny: no file, the denial is in the result", async () => {
  const box = sandbox();
  const canUseTool = () => ({ behavior: "deny", message: "not here" });
  const ms = await collect(query({ prompt: "FAKE_WRITE out.txt", options: mockOptions(box, { canUseTool }) }));
  assert.equal(fs.existsSync(path.join(box.cwd, "out.txt")), false);
  const [r] = results(ms);
  assert.equal(r.permission_denials.length, 1);
  assert.equal(r.permission_denials[0].tool_name, "Write");
  const toolResult = ms.find((m) => m.type === "user" && Array.isArray(m.message.content));
  assert.equal(toolResult.message.content[0].is_error, true);
  assert.match(JSON.stringify(toolResult.message.content[0].content), /not here/);
});

test("canUseTool modified input: the tool runs with the callback's input", async () => {
  const box = sandbox();
  const canUseTool = async (_name, input) => ({
    behavior: "allow",
    updatedInput: { ...input, file_path: "other.txt", content: "changed\n" },
  });
  await collect(query({ prompt: "FAKE_WRITE out.txt", options: mockOptions(box, { canUseTool }) }));
  assert.equal(fs.existsSync(path.join(box.cwd, "out.txt")), false);
  assert.equal(read(path.join(box.cwd, "other.txt")), "changed\n");
});

test("canUseTool that throws: the tool is denied and the session goes on", async () => {
  const box = sandbox();
  const canUseTool = () => {
    throw new Error("callback broke");
  };
  const ms = await collect(query({ prompt: "FAKE_WRITE out.txt", options: mockOptions(box, { canUseTool }) }));
  assert.equal(fs.existsSync(path.join(box.cwd, "out.txt")), false);
  assert.equal(results(ms)[0].permission_denials.length, 1);
});

test("a PreToolUse hook blocks the Bash call (its twin without the hook runs it)", async () => {
  const box = sandbox();
  const seen = [];
  const hook = async (input, toolUseID) => {
    seen.push({ input, toolUseID });
    return {
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "no shell today" },
    };
  };
  const options = mockOptions(box, { allowedTools: ["Bash"], hooks: { PreToolUse: [{ matcher: "Bash", hooks: [hook] }] } });
  const ms = await collect(query({ prompt: "FAKE_TOUCH", options }));
  assert.equal(seen.length, 1);
  assert.equal(seen[0].input.hook_event_name, "PreToolUse");
  assert.equal(seen[0].input.tool_name, "Bash");
  assert.equal(seen[0].toolUseID, toolUses(ms)[0].id);
  assert.equal(fs.existsSync(path.join(box.cwd, "made.txt")), false);
  assert.match(JSON.stringify(ms.find((m) => m.type === "user" && Array.isArray(m.message.content))), /no shell today/);

  const twin = sandbox();
  await collect(query({ prompt: "FAKE_TOUCH", options: mockOptions(twin, { allowedTools: ["Bash"] }) }));
  assert.equal(fs.existsSync(path.join(twin.cwd, "made.txt")), true);
});

test("an SDK MCP tool is listed and called by the model", async () => {
  const box = sandbox();
  let calls = 0;
  const serverTime = tool("server_time", "The server's time", {}, async () => {
    calls += 1;
    return { content: [{ type: "text", text: "12:34:56" }] };
  });
  const app = createSdkMcpServer({ name: "app", version: "1.2.3", tools: [serverTime] });
  const q = query({
    prompt: "what time is it",
    options: mockOptions(box, { mcpServers: { app }, allowedTools: ["mcp__app__server_time"] }),
  });
  const ms = await collect(q);
  assert.equal(calls, 1);
  assert.equal(toolUses(ms)[0].name, "mcp__app__server_time");
  const init = ms.find((m) => m.type === "system" && m.subtype === "init");
  assert.ok(init.tools.includes("mcp__app__server_time"), JSON.stringify(init.tools));
  assert.ok(init.mcp_servers.some((s) => s.name === "app" && s.status === "connected"), JSON.stringify(init.mcp_servers));
  assert.match(results(ms)[0].result, /12:34:56/);
});

test("zod schemas: arguments are validated and typed; bad input reaches the model as an error", async () => {
  const box = sandbox();
  const got = [];
  const add = tool("add", "Adds two numbers", { a: z.number(), b: z.number().describe("the other one") }, async ({ a, b }) => {
    got.push([a, b]);
    return { content: [{ type: "text", text: String(a + b) }] };
  });
  const calc = createSdkMcpServer({ name: "calc", tools: [add] });
  const listed = await calc.instance.handle({ jsonrpc: "2.0", id: 1, method: "tools/list" });
  const schema = listed.result.tools[0].inputSchema;
  assert.equal(schema.type, "object");
  assert.deepEqual(schema.required, ["a", "b"]);
  assert.equal(schema.properties.b.description, "the other one");

  const options = mockOptions(box, { mcpServers: { calc }, allowedTools: ["mcp__calc__add"] });
  const ok = await collect(query({ prompt: 'FAKE_TOOL mcp__calc__add {"a":2,"b":3}', options }));
  assert.deepEqual(got, [[2, 3]]);
  assert.match(JSON.stringify(ok.find((m) => m.type === "user" && Array.isArray(m.message.content))), /"5"|\b5\b/);

  const bad = await collect(query({ prompt: 'FAKE_TOOL mcp__calc__add {"a":"two","b":3}', options: mockOptions(sandbox(), { mcpServers: { calc }, allowedTools: ["mcp__calc__add"] }) }));
  assert.equal(got.length, 1, "the handler must not run on invalid input");
  const block = bad.find((m) => m.type === "user" && Array.isArray(m.message.content)).message.content[0];
  assert.equal(block.is_error, true);
  assert.match(JSON.stringify(block.content), /validation/i);
});
