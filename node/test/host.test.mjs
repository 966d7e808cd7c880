// The Rust host (dcl_bridge::host) behind the package: a callback that never answers is
// withdrawn by dcl (control_cancel_request) and its signal aborts; the package keeps no
// table of request ids (grep below); awaited control calls resolve through the host.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";

import { query } from "../dist/esm/index.mjs";
import { PKG, collect, mockOptions, results, sandbox } from "./helpers.mjs";

test("a canUseTool that never answers is withdrawn: its signal aborts, the write is refused, the session goes on", async () => {
  const box = sandbox();
  let aborted;
  const canUseTool = (name, input, { signal }) =>
    new Promise((resolve) => {
      // Never answers; dcl's host timeout (0.3 s) sends control_cancel_request.
      signal.addEventListener("abort", () => {
        aborted = signal.reason ?? true;
        // An answer after the withdrawal goes nowhere (and throws nothing).
        resolve({ behavior: "allow", updatedInput: input });
      });
    });
  const ms = await collect(
    query({ prompt: "FAKE_WRITE late.txt", options: mockOptions(box, { canUseTool, hostTimeout: 0.3 }) }),
  );
  assert.ok(aborted, "the callback's signal was aborted");
  assert.equal(fs.existsSync(path.join(box.cwd, "late.txt")), false, "nothing written after the withdrawal");
  assert.equal(results(ms).length, 1);
  assert.equal(results(ms)[0].permission_denials.length, 1, JSON.stringify(results(ms)[0]));
});

test("its twin: a canUseTool that answers in time keeps its signal and the write happens", async () => {
  const box = sandbox();
  let signal;
  const canUseTool = (name, input, opts) => {
    signal = opts.signal;
    return { behavior: "allow", updatedInput: input };
  };
  await collect(query({ prompt: "FAKE_WRITE ok.txt", options: mockOptions(box, { canUseTool, hostTimeout: 5 }) }));
  assert.equal(fs.readFileSync(path.join(box.cwd, "ok.txt"), "utf8"), "hello\n");
  await new Promise((r) => setTimeout(r, 50));
  assert.equal(signal.aborted, false, "an answered request is not aborted");
});

test("awaited control calls: mcpServerStatus, setModel and a refused rewind resolve through the host", async () => {
  const box = sandbox();
  async function* prompts() {
    yield { type: "user", message: { role: "user", content: "hi" }, parent_tool_use_id: null, session_id: "" };
  }
  const q = query({ prompt: prompts(), options: mockOptions(box) });
  const status = await q.mcpServerStatus();
  assert.ok(Array.isArray(status), JSON.stringify(status));
  await q.setModel("mock-model");
  await assert.rejects(q.rewindFiles("no-such-message"), /rewind|message|checkpoint/i);
  for await (const m of q) if (m.type === "result") break;
  await q.return?.();
});

test("no request-id bookkeeping in the package: correlation lives in the Rust host", () => {
  const src = path.join(PKG, "src");
  const offenders = [];
  for (const f of fs.readdirSync(src).filter((f) => f.endsWith(".ts"))) {
    const text = fs.readFileSync(path.join(src, f), "utf8");
    // A map keyed by request id, or ids minted here, is what the host does instead.
    if (/new Map<string,\s*\{\s*resolve/.test(text) || /request_id:\s*id/.test(text) || /req_\$\{/.test(text)) {
      offenders.push(f);
    }
  }
  assert.deepEqual(offenders, []);
});

test("an open session keeps Node alive while it waits for events, and lets it exit once closed", () => {
  // A session waiting for events holds no pending promise of its own: the thread's one
  // waker is what keeps the event loop alive, held while any session is open. Without it
  // a script awaiting a turn exits early (code 13, an unsettled top-level await).
  const box = sandbox();
  const script = [
    `const { query } = await import(${JSON.stringify(path.join(PKG, "dist", "esm", "index.mjs"))});`,
    `const options = ${JSON.stringify(mockOptions(box))};`,
    "let turns = 0;",
    "for await (const m of query({ prompt: 'hi', options })) if (m.type === 'result') turns++;",
    "console.log(`turns ${turns}`);",
  ].join("\n");
  const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", env: process.env, timeout: 60_000 });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(run.stdout.trim(), "turns 1");
});
