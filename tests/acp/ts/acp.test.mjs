// dcl acp driven by the official TypeScript ACP client (@agentclientprotocol/sdk, pinned
// in package.json): `npm ci && DCL_BIN=... node --test`. The binary defaults to
// $CARGO_TARGET_DIR/debug/dcl, else ../../../target/debug/dcl.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import * as acp from "@agentclientprotocol/sdk";

const here = dirname(fileURLToPath(import.meta.url));
const DCL =
  process.env.DCL_BIN ??
  join(process.env.CARGO_TARGET_DIR ?? join(here, "../../../target"), "debug/dcl");

// Tests read a session's cwd after its dcl has exited, so the folders go when the file is done.
const made = [];
after(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
const tempDir = (prefix) => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.push(dir);
  return dir;
};

/** Runs `body(ctx, cwd, seen)` as a client of a fresh `dcl acp`. */
async function withDcl(extra, choice, body, buffers = null) {
  const home = tempDir("acp-home-");
  const cwd = tempDir("acp-cwd-");
  const child = spawn(DCL, ["acp", "--model", "mock-model", ...extra], {
    cwd,
    env: { ...process.env, HOME: home, DCL_CONFIG_DIR: join(home, ".dcl") },
    stdio: ["pipe", "pipe", "inherit"],
  });
  const seen = { updates: [], permissions: [], reads: [], writes: [], terminals: [] };
  const ran = new Map();
  const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
  try {
    await acp
      .client({ name: "dcl-acp-ts-test" })
      .onNotification("session/update", ({ params }) => {
        seen.updates.push(params);
      })
      .onRequest("session/request_permission", ({ params }) => {
        seen.permissions.push(params);
        return choice
          ? { outcome: { outcome: "selected", optionId: choice } }
          : { outcome: { outcome: "cancelled" } };
      })
      .onRequest("fs/read_text_file", ({ params }) => {
        seen.reads.push(params.path);
        const content = buffers?.get(params.path);
        if (content === undefined) throw acp.RequestError.resourceNotFound(params.path);
        return { content };
      })
      .onRequest("fs/write_text_file", ({ params }) => {
        seen.writes.push([params.path, params.content]);
        buffers?.set(params.path, params.content);
        return {};
      })
      // The test's "editor" runs a terminal's command to its end when it is created.
      .onRequest("terminal/create", ({ params }) => {
        seen.terminals.push(params);
        const r = spawnSync(params.command, params.args ?? [], { cwd: params.cwd, encoding: "utf8" });
        const terminalId = `term-${seen.terminals.length}`;
        ran.set(terminalId, { output: (r.stdout ?? "") + (r.stderr ?? ""), exitCode: r.status });
        return { terminalId };
      })
      .onRequest("terminal/wait_for_exit", ({ params }) => ({ exitCode: ran.get(params.terminalId)?.exitCode ?? null }))
      .onRequest("terminal/output", ({ params }) => {
        const r = ran.get(params.terminalId);
        return { output: r?.output ?? "", truncated: false, exitStatus: { exitCode: r?.exitCode ?? null } };
      })
      .onRequest("terminal/kill", () => ({}))
      .onRequest("terminal/release", () => ({}))
      .connectWith(stream, (ctx) => body(ctx, cwd, seen));
  } finally {
    child.stdin.end();
    await new Promise((resolve) => (child.exitCode !== null ? resolve() : child.on("exit", resolve)));
  }
  return { cwd, code: child.exitCode };
}

const kinds = (seen, id) =>
  seen.updates.filter((n) => n.sessionId === id).map((n) => n.update.sessionUpdate);

async function start(ctx, cwd, mcpServers = [], clientCapabilities = {}) {
  const init = await ctx.request("initialize", { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities });
  const { sessionId } = await ctx.request("session/new", { cwd, mcpServers });
  return { init, sessionId };
}

const say = (ctx, sessionId, text) =>
  ctx.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] });

test("initialize and a plain prompt", async () => {
  const { code } = await withDcl([], null, async (ctx, cwd, seen) => {
    const { init, sessionId } = await start(ctx, cwd);
    assert.equal(init.agentInfo.name, "dcl");
    assert.equal(init.agentCapabilities.loadSession, true);
    assert.equal(init.agentCapabilities.promptCapabilities.image, true);
    const r = await say(ctx, sessionId, "hello");
    assert.equal(r.stopReason, "end_turn");
    const text = seen.updates
      .filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === "agent_message_chunk")
      .map((n) => n.update.content.text)
      .join("");
    assert.equal(text, "Hello from the fake model.");
  });
  assert.equal(code, 0);
});

test("a tool call allowed runs, one rejected does not", async () => {
  const allowed = await withDcl([], "allow_once", async (ctx, cwd, seen) => {
    const { sessionId } = await start(ctx, cwd);
    assert.equal((await say(ctx, sessionId, "FAKE_TOUCH")).stopReason, "end_turn");
    assert.equal(seen.permissions.length, 1);
    const call = seen.updates.find((n) => n.update.sessionUpdate === "tool_call").update;
    assert.equal(call.kind, "execute");
    const done = seen.updates.findLast((n) => n.update.sessionUpdate === "tool_call_update").update;
    assert.equal(done.status, "completed");
  });
  assert.ok(existsSync(join(allowed.cwd, "made.txt")));
  const rejected = await withDcl([], "reject_once", async (ctx, cwd, seen) => {
    const { sessionId } = await start(ctx, cwd);
    assert.equal((await say(ctx, sessionId, "FAKE_TOUCH")).stopReason, "end_turn");
    const done = seen.updates.findLast((n) => n.update.sessionUpdate === "tool_call_update").update;
    assert.equal(done.status, "failed");
  });
  assert.ok(!existsSync(join(rejected.cwd, "made.txt")));
});

test("a write shows its diff", async () => {
  const { cwd } = await withDcl([], "allow_once", async (ctx, cwd, seen) => {
    const { sessionId } = await start(ctx, cwd);
    assert.equal((await say(ctx, sessionId, "FAKE_WRITE notes.txt")).stopReason, "end_turn");
    const done = seen.updates.findLast((n) => n.update.sessionUpdate === "tool_call_update").update;
    const diff = done.content.find((c) => c.type === "diff");
    assert.equal(diff.path, join(cwd, "notes.txt"));
    assert.equal(diff.newText, "hello\n");
  });
  assert.equal(readFileSync(join(cwd, "notes.txt"), "utf8"), "hello\n");
});

test("cancel mid-tool answers cancelled", async () => {
  const { cwd } = await withDcl(["--permission-mode", "bypassPermissions"], null, async (ctx, cwd, seen) => {
    const { sessionId } = await start(ctx, cwd);
    const turn = say(ctx, sessionId, 'FAKE_TOOL Bash {"command": "sleep 30 && touch late.txt"}');
    while (!kinds(seen, sessionId).includes("tool_call")) await new Promise((r) => setTimeout(r, 50));
    await new Promise((r) => setTimeout(r, 300));
    await ctx.notify("session/cancel", { sessionId });
    assert.equal((await turn).stopReason, "cancelled");
  });
  assert.ok(!existsSync(join(cwd, "late.txt")));
});

test("two sessions at once, then load one back", async () => {
  await withDcl([], null, async (ctx, cwd, seen) => {
    const { sessionId: a } = await start(ctx, cwd);
    const { sessionId: b } = await ctx.request("session/new", { cwd, mcpServers: [] });
    const [ra, rb] = await Promise.all([say(ctx, a, "FAKE_THINK"), say(ctx, b, "hello")]);
    assert.equal(ra.stopReason, "end_turn");
    assert.equal(rb.stopReason, "end_turn");
    assert.ok(kinds(seen, a).includes("agent_thought_chunk"));
    assert.ok(!kinds(seen, b).includes("agent_thought_chunk"));
    await ctx.request("session/close", { sessionId: b });
    const before = seen.updates.length;
    await ctx.request("session/load", { sessionId: b, cwd, mcpServers: [] });
    const replayed = seen.updates.slice(before).filter((n) => n.sessionId === b);
    assert.ok(replayed.some((n) => n.update.sessionUpdate === "user_message_chunk" && n.update.content.text === "hello"));
  });
});

test("bad input: unknown session and unknown method are errors", async () => {
  await withDcl([], null, async (ctx, cwd) => {
    await start(ctx, cwd);
    await assert.rejects(say(ctx, "no-such-session", "hi"), (e) => e.code === -32002);
    await assert.rejects(ctx.request("session/teleport", {}), (e) => e.code === -32601);
  });
});

// A project's .mcp.json server is asked about through session/request_permission: rejected,
// its tool is absent; allowed, the model calls it; "always" is remembered in local settings.
const plantMcp = (cwd) => {
  const script = join(here, "../../../acp/tests/fixtures/echo_mcp.py");
  writeFileSync(join(cwd, ".mcp.json"), JSON.stringify({ mcpServers: { demo: { command: "python3", args: [script] } } }));
};

async function callEcho(ctx, cwd, seen) {
  plantMcp(cwd);
  const { sessionId } = await start(ctx, cwd);
  const r = await say(ctx, sessionId, 'FAKE_TOOL mcp__demo__echo {"text": "ping"}');
  assert.equal(r.stopReason, "end_turn");
  const asked = seen.permissions.filter((p) => p.toolCall.rawInput?.server_name === "demo");
  const done = seen.updates.filter((n) => n.sessionId === sessionId && n.update.sessionUpdate === "tool_call_update").at(-1);
  return { asked, done: done?.update };
}

for (const [choice, ran] of [["reject_once", false], ["allow_once", true], ["allow_always", true]]) {
  test(`project MCP server approval: ${choice}`, async () => {
    const { cwd } = await withDcl(["--permission-mode", "bypassPermissions"], choice, async (ctx, cwd, seen) => {
      const { asked, done } = await callEcho(ctx, cwd, seen);
      assert.equal(asked.length, 1);
      assert.match(asked[0].toolCall.title, /demo/);
      assert.equal(done.status, ran ? "completed" : "failed");
      assert.equal(JSON.stringify(done).includes("echo: ping"), ran);
    });
    const local = [join(cwd, ".claude/settings.local.json"), join(cwd, ".dcl/settings.local.json")].find(existsSync);
    if (choice === "allow_always") {
      assert.deepEqual(JSON.parse(readFileSync(local, "utf8")).enabledMcpjsonServers, ["demo"]);
    } else {
      assert.equal(local, undefined);
    }
  });
}

// Client file access: offered, Read sees the editor's buffer and Write reaches the editor,
// not the disk; not offered, dcl uses the disk.
test("client fs: used when offered, not when not", async () => {
  const buffers = new Map();
  const fs = { fs: { readTextFile: true, writeTextFile: true } };
  const offered = await withDcl(["--permission-mode", "bypassPermissions"], null, async (ctx, cwd, seen) => {
    writeFileSync(join(cwd, "a.txt"), "saved on disk\n");
    buffers.set(join(cwd, "a.txt"), "unsaved in the editor\n");
    const { sessionId } = await start(ctx, cwd, [], fs);
    await say(ctx, sessionId, 'FAKE_TOOL Read {"file_path": "a.txt"}');
    const read = seen.updates.findLast((n) => n.update.sessionUpdate === "tool_call_update").update;
    assert.match(JSON.stringify(read), /unsaved in the editor/);
    assert.doesNotMatch(JSON.stringify(read), /saved on disk/);
    await say(ctx, sessionId, 'FAKE_TOOL Write {"file_path": "new.txt", "content": "hi\\n"}');
    assert.deepEqual(seen.writes, [[join(cwd, "new.txt"), "hi\n"]]);
  }, buffers);
  assert.ok(!existsSync(join(offered.cwd, "new.txt")));
  const plain = await withDcl(["--permission-mode", "bypassPermissions"], null, async (ctx, cwd, seen) => {
    writeFileSync(join(cwd, "a.txt"), "saved on disk\n");
    const { sessionId } = await start(ctx, cwd);
    await say(ctx, sessionId, 'FAKE_TOOL Read {"file_path": "a.txt"}');
    const read = seen.updates.findLast((n) => n.update.sessionUpdate === "tool_call_update").update;
    assert.match(JSON.stringify(read), /saved on disk/);
    assert.equal(seen.reads.length, 0);
  });
  assert.ok(existsSync(join(plain.cwd, "a.txt")));
});

test("client terminal: Bash runs in the editor's terminal when offered", async () => {
  await withDcl(["--permission-mode", "bypassPermissions"], null, async (ctx, cwd, seen) => {
    const { sessionId } = await start(ctx, cwd, [], { terminal: true });
    await say(ctx, sessionId, 'FAKE_TOOL Bash {"command": "echo from-the-terminal"}');
    assert.equal(seen.terminals.length, 1);
    assert.deepEqual(seen.terminals[0].args, ["-c", "echo from-the-terminal"]);
    const updates = seen.updates.filter((n) => n.update.sessionUpdate === "tool_call_update");
    assert.ok(updates.some((n) => n.update.content?.some((c) => c.type === "terminal")));
    assert.match(JSON.stringify(updates.at(-1).update), /from-the-terminal/);
  });
});

test("session/resume goes on without replaying the history", async () => {
  await withDcl([], null, async (ctx, cwd, seen) => {
    const { init, sessionId } = await start(ctx, cwd);
    assert.ok(init.agentCapabilities.sessionCapabilities.resume);
    assert.equal((await say(ctx, sessionId, "remember quince")).stopReason, "end_turn");
    await ctx.request("session/close", { sessionId });
    const before = seen.updates.length;
    const r = await ctx.request("session/resume", { sessionId, cwd });
    assert.equal(r.modes.currentModeId, "default");
    assert.equal((await say(ctx, sessionId, "and plum")).stopReason, "end_turn");
    const after = seen.updates.slice(before).filter((n) => n.sessionId === sessionId);
    assert.ok(!after.some((n) => n.update.sessionUpdate === "user_message_chunk"));
    await assert.rejects(ctx.request("session/resume", { sessionId: "00000000-0000-4000-8000-000000000000", cwd }));
  });
});

test("session/fork starts a new session from a copy of the conversation", async () => {
  await withDcl([], null, async (ctx, cwd, seen) => {
    const { init, sessionId } = await start(ctx, cwd);
    assert.ok(init.agentCapabilities.sessionCapabilities.fork);
    assert.equal((await say(ctx, sessionId, "remember quince")).stopReason, "end_turn");
    const fork = await ctx.request("session/fork", { sessionId, cwd, mcpServers: [] });
    assert.notEqual(fork.sessionId, sessionId);
    assert.equal(fork.modes.currentModeId, "default");
    const text = (id) =>
      seen.updates
        .filter((n) => n.sessionId === id && n.update.sessionUpdate === "agent_message_chunk")
        .map((n) => n.update.content.text)
        .join("");
    // The mock's FAKE_HISTORY answer lists the prompts the model saw.
    await say(ctx, fork.sessionId, "FAKE_HISTORY in the fork");
    assert.match(text(fork.sessionId), /remember quince/);
    // The source did not see the fork's prompt.
    const before = text(sessionId).length;
    await say(ctx, sessionId, "FAKE_HISTORY in the source");
    const answer = text(sessionId).slice(before);
    assert.match(answer, /remember quince/);
    assert.doesNotMatch(answer, /in the fork/);
    await assert.rejects(
      ctx.request("session/fork", { sessionId: "00000000-0000-4000-8000-000000000000", cwd, mcpServers: [] }),
    );
  });
});
