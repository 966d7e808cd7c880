// Options that reach the session's extensions and persistence: plugins (as --plugin-dir),
// persistSession, and the agent options carried by initialize.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";

import { InvalidOptionsError, listSessions, query } from "../dist/esm/index.mjs";
import { collect, collectSettled, mockOptions, results, sandbox } from "./helpers.mjs";

const init = (ms) => ms.find((m) => m.type === "system" && m.subtype === "init");

function plugin(root) {
  const dir = path.join(root, "kit");
  fs.mkdirSync(path.join(dir, ".claude-plugin"), { recursive: true });
  fs.mkdirSync(path.join(dir, "commands"), { recursive: true });
  fs.writeFileSync(path.join(dir, ".claude-plugin", "plugin.json"), JSON.stringify({ name: "kit", version: "1.2.3" }));
  fs.writeFileSync(path.join(dir, "commands", "greet.md"), "---\ndescription: Greets\n---\nSay hello to $ARGUMENTS\n");
  return dir;
}

test("plugins: a local plugin's command is listed in init and by supportedCommands()", async () => {
  const box = sandbox();
  const dir = plugin(box.root);
  const q = query({ prompt: "hi", options: mockOptions(box, { plugins: [{ type: "local", path: dir }] }) });
  const commands = await q.supportedCommands();
  const ms = await collect(q);
  assert.ok(init(ms).slash_commands.includes("kit:greet"), JSON.stringify(init(ms).slash_commands));
  assert.ok(init(ms).plugins.some((p) => p.name === "kit"), JSON.stringify(init(ms).plugins));
  assert.ok(commands.some((c) => c.name === "kit:greet" && c.description === "Greets"), JSON.stringify(commands));
  // Twin: without the option there is no such command.
  const plain = await collect(query({ prompt: "hi", options: mockOptions(sandbox()) }));
  assert.ok(!init(plain).slash_commands.includes("kit:greet"));
});

test("plugins of another type are refused, naming the option", async () => {
  const { error } = await collectSettled(query({ prompt: "hi", options: mockOptions(sandbox(), { plugins: [{ type: "marketplace", name: "x" }] }) }));
  assert.ok(error instanceof InvalidOptionsError, String(error));
  assert.equal(error.option, "plugins");
});

test("persistSession: false writes no transcript; the default does", async () => {
  const box = sandbox();
  const ms = await collect(query({ prompt: "hi", options: mockOptions(box, { persistSession: false }) }));
  assert.equal(results(ms)[0].is_error, false);
  assert.deepEqual(await listSessions({ dir: box.cwd, env: { HOME: box.home } }), []);
  await collect(query({ prompt: "hi", options: mockOptions(box) }));
  assert.equal((await listSessions({ dir: box.cwd, env: { HOME: box.home } })).length, 1);
});

test("agents with agent: the main thread runs as the named agent", async () => {
  const box = sandbox();
  const agents = { reviewer: { description: "Reviews code", prompt: "You review code." } };
  const ms = await collect(query({ prompt: "hi", options: mockOptions(box, { agents, agent: "reviewer", forwardSubagentText: true }) }));
  assert.ok(init(ms).agents.includes("reviewer"), JSON.stringify(init(ms).agents));
  assert.equal(results(ms)[0].is_error, false);
  // An agent nobody defined is an error the session reports, not silence.
  const bad = await collectSettled(query({ prompt: "hi", options: mockOptions(sandbox(), { agent: "nobody" }) }));
  assert.ok(bad.error !== undefined || results(bad.messages).some((r) => r.is_error), "unknown agent is reported");
});
