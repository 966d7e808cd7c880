// Parity: the same scenarios in-process (@dcl/agent's query) and through
// @anthropic-ai/claude-agent-sdk driving the dcl CLI as a child process give the same
// normalised message sequence.
//
// Each side runs in its own directory of the same shape (<tmp>/a/{work,home} and
// <tmp>/b/{work,home}: equal path lengths, so texts that count characters agree).
// Normalisation covers what differs by design, not by behaviour: uuids and `msg_mock_*`
// ids become <uuid:N> / <msg:N> by first appearance (so "the same id again" must still
// match), wall-clock durations are dropped and timestamps become <time>, and each side's paths become <cwd> / <home>.
// The CLI side runs with DCL_NO_LEGACY_EVENTS=1, since the package never asks for the
// legacy lines. The binary is $DCL_BIN or target/debug/dcl (`cargo build -p dcl-cli`),
// built from the same sources as the addon.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";

import * as sdk from "@anthropic-ai/claude-agent-sdk";
import * as dcl from "../dist/esm/index.mjs";
import { DCL_BIN, Input, collectSettled, mkTmp } from "./helpers.mjs";

const haveDcl = fs.existsSync(DCL_BIN);

function sides() {
  const tmp = mkTmp("dcl-parity-");
  const make = (name) => {
    const root = path.join(tmp, name);
    const cwd = path.join(root, "work");
    const home = path.join(root, "home");
    fs.mkdirSync(cwd, { recursive: true });
    fs.mkdirSync(home, { recursive: true });
    return { root, cwd, home };
  };
  return [make("a"), make("b")];
}

/** Runs one scenario on one side; `api` is @dcl/agent or the SDK (same names). */
async function runSide(api, box, scenario) {
  const inProcess = api === dcl;
  const options = {
    model: "mock-model",
    cwd: box.cwd,
    ...scenario.options(api),
    env: inProcess ? { HOME: box.home } : { ...process.env, HOME: box.home, DCL_NO_LEGACY_EVENTS: "1" },
  };
  if (!inProcess) options.pathToClaudeCodeExecutable = DCL_BIN;
  let prompt = scenario.prompt;
  let input;
  if (Array.isArray(prompt)) {
    input = new Input();
    input.push(prompt[0]);
    prompt = input;
  }
  const q = api.query({ prompt, options });
  const messages = [];
  let error;
  try {
    let results = 0;
    for await (const m of q) {
      messages.push(m);
      if (input && m.type === "result") {
        results += 1;
        if (results < scenario.prompt.length) input.push(scenario.prompt[results]);
        else input.close();
      }
    }
  } catch (e) {
    error = e;
  }
  return { messages, error };
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const MSG = /msg_mock_[0-9a-f]+/g;
const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;
const DROP = new Set(["duration_ms", "duration_api_ms"]);

function normaliser(box) {
  const ids = new Map();
  const name = (kind, raw) => {
    const key = `${kind}:${raw}`;
    if (!ids.has(key)) ids.set(key, `<${kind}:${ids.size}>`);
    return ids.get(key);
  };
  const text = (s) =>
    s
      .split(box.cwd).join("<cwd>")
      .split(box.home).join("<home>")
      .replace(UUID, (u) => name("uuid", u))
      .replace(MSG, (m) => name("msg", m));
  const walk = (v) => {
    if (typeof v === "string") return TIME.test(v) ? "<time>" : text(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === "object") {
      const out = {};
      for (const k of Object.keys(v).sort()) if (!DROP.has(k)) out[text(k)] = walk(v[k]);
      return out;
    }
    return v;
  };
  return walk;
}

const allow = async (_n, input) => ({ behavior: "allow", updatedInput: input });
const scenarios = [
  { name: "one-shot", prompt: "hi", options: () => ({}) },
  { name: "one-shot, a system prompt", prompt: "hi", options: () => ({ systemPrompt: "Be brief." }) },
  { name: "an allowed Bash call", prompt: "please FAKE_BASH", options: () => ({ allowedTools: ["Bash"] }) },
  { name: "canUseTool allow", prompt: "FAKE_WRITE out.txt", options: () => ({ canUseTool: allow }) },
  {
    name: "canUseTool deny",
    prompt: "FAKE_WRITE out.txt",
    options: () => ({ canUseTool: async () => ({ behavior: "deny", message: "no" }) }),
  },
  {
    name: "canUseTool modified input",
    prompt: "FAKE_WRITE out.txt",
    options: () => ({ canUseTool: async (_n, i) => ({ behavior: "allow", updatedInput: { ...i, file_path: "b.txt" } }) }),
  },
  {
    name: "a blocking PreToolUse hook",
    prompt: "FAKE_TOUCH",
    options: () => ({
      allowedTools: ["Bash"],
      hooks: {
        PreToolUse: [
          {
            matcher: "Bash",
            hooks: [async () => ({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny", permissionDecisionReason: "blocked" } })],
          },
        ],
      },
    }),
  },
  {
    name: "an SDK MCP tool",
    prompt: "what time is it",
    options: (api) => ({
      allowedTools: ["mcp__app__server_time"],
      mcpServers: {
        app: api.createSdkMcpServer({
          name: "app",
          version: "1.0.0",
          tools: [api.tool("server_time", "The time", {}, async () => ({ content: [{ type: "text", text: "09:00" }] }))],
        }),
      },
    }),
  },
  { name: "partial messages", prompt: "hi", options: () => ({ includePartialMessages: true }) },
  { name: "streaming input, two turns", prompt: ["hello", "please FAKE_BASH"], options: () => ({ allowedTools: ["Bash"] }) },
  { name: "an error result", prompt: "FAKE_ERR400", options: () => ({}) },
];

/** A readable line per message, shown first when the sequences differ. */
function summary(m) {
  const blocks = m.message?.content;
  const parts = [m.type, m.subtype ?? ""];
  if (Array.isArray(blocks)) parts.push(blocks.map((b) => `${b.type}${b.name ? `:${b.name}` : ""}${b.text ? `:${b.text}` : ""}`).join(","));
  if (m.type === "result") parts.push(String(m.result), String(m.is_error), String(m.num_turns));
  if (m.type === "stream_event") parts.push(m.event?.type ?? "");
  return parts.join(" | ");
}

for (const scenario of scenarios) {
  test(`parity: ${scenario.name}`, { skip: haveDcl ? false : `no dcl binary at ${DCL_BIN}` }, async () => {
    const [a, b] = sides();
    const mine = await runSide(dcl, a, scenario);
    const theirs = await runSide(sdk, b, scenario);
    const left = mine.messages.map(normaliser(a));
    const right = theirs.messages.map(normaliser(b));
    assert.deepEqual(left.map(summary), right.map(summary));
    assert.deepEqual(left, right);
    // Both end the same way: quietly, or by throwing after an error result.
    assert.equal(Boolean(mine.error), Boolean(theirs.error), `in-process: ${mine.error}; sdk+cli: ${theirs.error}`);
    if (mine.error) assert.ok(mine.error instanceof dcl.ResultError);
    // Same files left behind.
    const files = (box) => fs.readdirSync(box.cwd).sort().map((f) => [f, fs.readFileSync(path.join(box.cwd, f), "utf8")]);
    assert.deepEqual(files(a), files(b));
  });
}

void collectSettled;
