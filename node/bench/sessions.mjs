// Many concurrent sessions in one Node process, on the mock model: what an idle session
// costs (memory, descriptors, threads) and how many turns per second the process serves
// when every session runs turns at once. The Node twin of tests/bench/python_sessions.py.
//
//   1. one warm-up session (the runtime and the addon start);
//   2. open --sessions sessions (streaming input, `initialize` answered: the first turn is
//      run to be sure) and leave them idle; sample RSS, descriptors by kind, threads;
//   3. every session runs --turns more turns ("hello") at once; turns per second over the
//      wall time of the burst; sample again.
//
// --cli-path <dcl> runs every session in a dcl child through the same Rust host (the
// subprocess transport); their memory is summed as PSS. Release builds:
//   cargo build --release -p dcl-cli -p dcl-node
//   node [--expose-gc] node/bench/sessions.mjs --sessions 10000 [--turns 1] [--cli-path target/release/dcl]
// Prints one JSON object.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PKG = path.resolve(HERE, "..");
const REPO = path.resolve(PKG, "..");

function arg(name, fallback) {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : fallback;
}
const N = Number(arg("--sessions", "1000"));
const TURNS = Number(arg("--turns", "1"));
const CLI = arg("--cli-path", undefined);

if (!process.env.NAPI_RS_NATIVE_LIBRARY_PATH) {
  const so = path.join(process.env.CARGO_TARGET_DIR || path.join(REPO, "target"), "release", "libdcl_node.so");
  if (fs.existsSync(so)) {
    // require() loads native code only from a `.node` file.
    const copy = path.join(os.tmpdir(), `dcl-node-bench-${process.pid}.node`);
    fs.copyFileSync(so, copy);
    process.env.NAPI_RS_NATIVE_LIBRARY_PATH = copy;
  }
}
const { query } = await import(path.join(PKG, "dist", "esm", "index.mjs"));

class Input {
  #items = [];
  #waiters = [];
  #closed = false;
  push(text) {
    const m = { type: "user", message: { role: "user", content: text }, parent_tool_use_id: null, session_id: "" };
    const w = this.#waiters.shift();
    if (w) w({ value: m, done: false });
    else this.#items.push(m);
  }
  close() {
    this.#closed = true;
    for (const w of this.#waiters.splice(0)) w({ value: undefined, done: true });
  }
  [Symbol.asyncIterator]() {
    return {
      next: () => {
        if (this.#items.length) return Promise.resolve({ value: this.#items.shift(), done: false });
        if (this.#closed) return Promise.resolve({ value: undefined, done: true });
        return new Promise((r) => this.#waiters.push(r));
      },
    };
  }
}

function status(field, pid = "self") {
  const m = fs.readFileSync(`/proc/${pid}/status`, "utf8").match(new RegExp(`^${field}:\\s+(\\d+)`, "m"));
  return m ? Number(m[1]) : 0;
}

function descriptors() {
  const kinds = {};
  for (const fd of fs.readdirSync("/proc/self/fd")) {
    let target;
    try {
      target = fs.readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue;
    }
    const kind = target.includes(":") ? target.split(":")[0] : target.endsWith(".jsonl") ? "transcript" : "file";
    kinds[kind] = (kinds[kind] ?? 0) + 1;
  }
  return kinds;
}

/** PSS of this process's dcl children, KiB. */
function childrenPss() {
  let total = 0;
  for (const tid of fs.readdirSync(`/proc/${process.pid}/task`)) {
    let kids = "";
    try {
      kids = fs.readFileSync(`/proc/${process.pid}/task/${tid}/children`, "utf8");
    } catch {
      continue;
    }
    for (const pid of kids.split(/\s+/).filter(Boolean)) {
      try {
        const m = fs.readFileSync(`/proc/${pid}/smaps_rollup`, "utf8").match(/^Pss:\s+(\d+)/m);
        if (m) total += Number(m[1]);
      } catch {
        // gone meanwhile
      }
    }
  }
  return total;
}

function sample() {
  const m = process.memoryUsage();
  return { rssKiB: status("VmRSS"), heapUsedKiB: m.heapUsed >> 10, externalKiB: m.external >> 10, childrenPssKiB: CLI ? childrenPss() : 0, threads: status("Threads"), fds: descriptors() };
}

const root = fs.mkdtempSync(path.join(os.tmpdir(), "dcl-bench-"));
fs.mkdirSync(path.join(root, "home"));
const options = () => ({
  model: "mock-model",
  cwd: root,
  persistSession: false,
  env: { HOME: path.join(root, "home"), PATH: process.env.PATH ?? "" },
  ...(CLI ? { cliPath: CLI } : {}),
});

function open() {
  const input = new Input();
  const q = query({ prompt: input, options: options() });
  const it = q[Symbol.asyncIterator]();
  const turn = async () => {
    input.push("hello");
    for (;;) {
      const { value, done } = await it.next();
      if (done) throw new Error("the session ended");
      if (value.type === "result") return;
    }
  };
  const close = async () => {
    input.close();
    for (;;) if ((await it.next()).done) return;
  };
  return { turn, close };
}

const warm = open();
await warm.turn();
const before = sample();
const t0 = performance.now();
const sessions = [];
let openError = null;
try {
  // In batches: all at once would measure the scheduler, not a session.
  for (let i = 0; i < N; i += 100) {
    const batch = Array.from({ length: Math.min(100, N - i) }, () => open());
    await Promise.all(batch.map((s) => s.turn()));
    sessions.push(...batch);
  }
} catch (e) {
  openError = `${e?.message ?? e} (after ${sessions.length} sessions)`;
}
const openS = (performance.now() - t0) / 1000;
const idle = sample();
const t1 = performance.now();
let done = 0;
await Promise.all(
  sessions.map(async (s) => {
    for (let i = 0; i < TURNS; i++) {
      await s.turn();
      done++;
    }
  }),
);
const burstS = (performance.now() - t1) / 1000;
const after = sample();
// With --expose-gc: the same after a full collection, so the figure is what the sessions
// hold rather than the burst's garbage V8 has not collected yet (both are printed).
let afterGc = null;
if (typeof globalThis.gc === "function") {
  globalThis.gc();
  afterGc = sample();
}
await Promise.all(sessions.map((s) => s.close()));
await warm.close();
fs.rmSync(root, { recursive: true, force: true });

const grown = (a, b) => Object.fromEntries(Object.keys({ ...a, ...b }).map((k) => [k, (b[k] ?? 0) - (a[k] ?? 0)]).filter(([, v]) => v));
const per = Math.max(sessions.length, 1);
console.log(
  JSON.stringify(
    {
      transport: CLI ? `subprocess (${CLI})` : "in-process",
      sessions: sessions.length,
      openError,
      openSeconds: Number(openS.toFixed(2)),
      idleGrowthMiB: Number(((idle.rssKiB - before.rssKiB + idle.childrenPssKiB) / 1024).toFixed(1)),
      idleKiBPerSession: Number(((idle.rssKiB - before.rssKiB + idle.childrenPssKiB) / per).toFixed(1)),
      idleDescriptorsPerSession: Number((Object.values(grown(before.fds, idle.fds)).reduce((a, b) => a + b, 0) / per).toFixed(3)),
      idleDescriptorKinds: grown(before.fds, idle.fds),
      // V8's share: JS objects (heapUsed) and what they hold outside the heap (external).
      heapUsedMiB: { before: before.heapUsedKiB >> 10, idle: idle.heapUsedKiB >> 10, after: after.heapUsedKiB >> 10, afterGc: afterGc && afterGc.heapUsedKiB >> 10 },
      externalMiB: { before: before.externalKiB >> 10, idle: idle.externalKiB >> 10, after: after.externalKiB >> 10 },
      threads: { before: before.threads, idle: idle.threads, after: after.threads },
      turns: done,
      turnsPerSecond: Math.round(done / burstS),
      afterGrowthMiB: Number(((after.rssKiB - before.rssKiB + after.childrenPssKiB) / 1024).toFixed(1)),
      afterGcGrowthMiB: afterGc && Number(((afterGc.rssKiB - before.rssKiB + afterGc.childrenPssKiB) / 1024).toFixed(1)),
    },
    null,
    2,
  ),
);
