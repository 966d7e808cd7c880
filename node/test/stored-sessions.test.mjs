// Saved sessions: listSessions / getSessionMessages / getSessionInfo read what in-process
// sessions wrote, agree with @anthropic-ai/claude-agent-sdk's own helpers on the same
// files, and resume (also through the SDK's query with spawnInProcess) carries history.
import assert from "node:assert/strict";
import { test } from "node:test";

import * as sdk from "@anthropic-ai/claude-agent-sdk";
import { getSessionInfo, getSessionMessages, listSessions, query, spawnInProcess } from "../dist/esm/index.mjs";
import { HELLO, collect, mockOptions, results, sandbox } from "./helpers.mjs";

async function oneTurn(box, prompt, extra = {}) {
  const ms = await collect(query({ prompt, options: mockOptions(box, extra) }));
  const [r] = results(ms);
  assert.equal(r.is_error, false, JSON.stringify(r));
  return r.session_id;
}

const userTexts = (msgs) =>
  msgs
    .filter((m) => m.type === "user")
    .map((m) => (typeof m.message.content === "string" ? m.message.content : m.message.content.map((b) => b.text ?? "").join("")));

/** Runs `fn` with HOME pointing at the sandbox, as the SDK's helpers read `os.homedir()`. */
async function withHome(box, fn) {
  const saved = { HOME: process.env.HOME, CLAUDE_CONFIG_DIR: process.env.CLAUDE_CONFIG_DIR };
  process.env.HOME = box.home;
  delete process.env.CLAUDE_CONFIG_DIR;
  try {
    return await fn();
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}

test("listSessions lists this directory's sessions newest first, with limit and offset", async () => {
  const box = sandbox();
  const first = await oneTurn(box, "first prompt");
  const second = await oneTurn(box, "second prompt");
  const env = { HOME: box.home };
  const all = await listSessions({ dir: box.cwd, env });
  assert.deepEqual(
    all.map((s) => s.sessionId),
    [second, first],
  );
  assert.equal(all[0].firstPrompt, "second prompt");
  assert.equal(all[0].cwd, box.cwd);
  assert.ok(all[0].lastModified >= all[1].lastModified);
  assert.ok(all[0].fileSize > 0);
  assert.deepEqual((await listSessions({ dir: box.cwd, env, limit: 1, offset: 1 })).map((s) => s.sessionId), [first]);
  // Every project's sessions when no dir is given; another HOME sees none of them.
  assert.equal((await listSessions({ env })).length, 2);
  assert.deepEqual(await listSessions({ dir: box.cwd, env: { HOME: sandbox().home } }), []);
  assert.equal((await getSessionInfo(first, { dir: box.cwd, env })).sessionId, first);
  assert.equal(await getSessionInfo("00000000-0000-4000-8000-000000000000", { env }), undefined);
  await assert.rejects(listSessions({ env, limit: -1 }), TypeError);
});

test("getSessionMessages reads the chain; unknown or malformed ids read as empty", async () => {
  const box = sandbox();
  const id = await oneTurn(box, "hi there");
  const env = { HOME: box.home };
  const msgs = await getSessionMessages(id, { dir: box.cwd, env });
  assert.deepEqual(
    msgs.map((m) => m.type),
    ["user", "assistant"],
  );
  assert.equal(userTexts(msgs)[0], "hi there");
  assert.equal(msgs[1].message.content[0].text, HELLO);
  for (const m of msgs) {
    assert.equal(m.session_id, id);
    assert.equal(m.parent_tool_use_id, null);
    assert.equal(m.parent_agent_id, null);
  }
  assert.equal((await getSessionMessages(id, { env, offset: 1 })).length, 1);
  assert.deepEqual(await getSessionMessages("00000000-0000-4000-8000-000000000000", { env }), []);
  assert.deepEqual(await getSessionMessages("../../etc/passwd", { env }), []);
});

/** One turn through the SDK's own query, in-process: the SDK marks it as its session
 * (CLAUDE_CODE_ENTRYPOINT=sdk-ts), so dcl writes it under the client home, ~/.claude. */
async function sdkTurn(box, prompt, extra = {}) {
  const ms = await collect(
    sdk.query({
      prompt,
      options: {
        model: "mock-model",
        cwd: box.cwd,
        pathToClaudeCodeExecutable: "dcl-in-process",
        spawnClaudeCodeProcess: spawnInProcess,
        ...extra,
        env: { ...process.env, HOME: box.home },
      },
    }),
  );
  return results(ms)[0].session_id;
}

test("the SDK's own listSessions / getSessionMessages agree on the same files", async () => {
  const box = sandbox();
  const a = await sdkTurn(box, "alpha");
  const b = await sdkTurn(box, "beta");
  const ours = await listSessions({ dir: box.cwd, env: { HOME: box.home } });
  const theirs = await withHome(box, () => sdk.listSessions({ dir: box.cwd }));
  assert.deepEqual(
    theirs.map((s) => s.sessionId).sort(),
    [a, b].sort(),
  );
  assert.deepEqual(
    ours.map((s) => [s.sessionId, s.firstPrompt]),
    theirs.map((s) => [s.sessionId, s.firstPrompt]),
  );
  const theirMsgs = await withHome(box, () => sdk.getSessionMessages(a, { dir: box.cwd }));
  const ourMsgs = await getSessionMessages(a, { dir: box.cwd, env: { HOME: box.home } });
  assert.ok(ourMsgs.length >= 2);
  assert.deepEqual(
    ourMsgs.map((m) => [m.type, m.uuid]),
    theirMsgs.map((m) => [m.type, m.uuid]),
  );
});

test("resume carries the history into the next session, in-process and through the SDK", async () => {
  const box = sandbox();
  const id = await oneTurn(box, "remember this");
  const again = await oneTurn(box, "and this", { resume: id });
  assert.equal(again, id, "a resumed session keeps its id");
  const texts = userTexts(await getSessionMessages(id, { dir: box.cwd, env: { HOME: box.home } }));
  assert.deepEqual(texts, ["remember this", "and this"]);
  // The SDK's query with the in-process spawn adapter: --resume reaches the session.
  assert.equal(await sdkTurn(box, "third", { resume: id }), id);
  const after = userTexts(await getSessionMessages(id, { dir: box.cwd, env: { HOME: box.home } }));
  assert.deepEqual(after, ["remember this", "and this", "third"]);
  // forkSession: a new id whose chain starts with the old history.
  const forked = await oneTurn(box, "fork", { resume: id, forkSession: true });
  assert.notEqual(forked, id);
  const forkTexts = userTexts(await getSessionMessages(forked, { dir: box.cwd, env: { HOME: box.home } }));
  assert.deepEqual(forkTexts, ["remember this", "and this", "third", "fork"]);
});
