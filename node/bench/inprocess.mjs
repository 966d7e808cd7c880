// In-process (@dcl/agent over the N-API addon) vs subprocess (@anthropic-ai/claude-agent-sdk
// driving the dcl CLI), side by side in one run, on the mock model:
//
//   time to first message   query() to the first message (system/init), fresh session each
//   per-turn overhead       one "hi" turn on an already connected session (streaming input)
//   memory                  100 and 1,000 connected sessions held at once: RSS of this
//                           process (+ every dcl child, summed as PSS, for the subprocess side)
//
// Every figure comes from a fresh node process (one per side and measurement), so neither
// side inherits the other's heap. Release builds: `cargo build --release -p dcl-cli -p dcl-node`
// (the addon is taken from target/release/libdcl_node.so unless NAPI_RS_NATIVE_LIBRARY_PATH
// is set). Usage:  node node/bench/inprocess.mjs [--quick]
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PKG = path.resolve(HERE, "..");
const REPO = path.resolve(PKG, "..");
const DCL = process.env.DCL_BIN || path.join(REPO, "target", "release", "dcl");
const QUICK = process.argv.includes("--quick");

function addonPath() {
  if (process.env.NAPI_RS_NATIVE_LIBRARY_PATH) return process.env.NAPI_RS_NATIVE_LIBRARY_PATH;
  const so = path.join(REPO, "target", "release", "libdcl_node.so");
  if (!fs.existsSync(so)) throw new Error(`no ${so}: cargo build --release -p dcl-node`);
  // require() loads native code only from a `.node` file.
  const copy = path.join(os.tmpdir(), `dcl-node-bench-${process.pid}.node`);
  fs.copyFileSync(so, copy);
  return copy;
}

// ------------------------------------------------------------------- child side

function box() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "dcl-bench-"));
  fs.mkdirSync(path.join(root, "home"));
  return root;
}

async function api(side) {
  if (side === "inprocess") return import(path.join(PKG, "dist", "esm", "index.mjs"));
  return import("@anthropic-ai/claude-agent-sdk");
}

function options(side, root) {
  const base = { model: "mock-model", cwd: root };
  if (side === "inprocess") return { ...base, env: { HOME: path.join(root, "home") } };
  return {
    ...base,
    pathToClaudeCodeExecutable: DCL,
    env: { ...process.env, HOME: path.join(root, "home"), DCL_NO_LEGACY_EVENTS: "1" },
  };
}

class Input {
  #items = [];
  #waiters = [];
  #closed = false;
  push(text) {
    this.#offer({ value: { type: "user", message: { role: "user", content: text }, parent_tool_use_id: null, session_id: "" }, done: false });
  }
  close() {
    this.#closed = true;
    this.#offer({ value: undefined, done: true });
  }
  #offer(r) {
    const w = this.#waiters.shift();
    if (w) w(r);
    else this.#items.push(r);
  }
  [Symbol.asyncIterator]() {
    return {
      next: () => (this.#items.length ? Promise.resolve(this.#items.shift()) : this.#closed ? Promise.resolve({ done: true }) : new Promise((r) => this.#waiters.push(r))),
      return: () => ((this.#closed = true), Promise.resolve({ done: true })),
    };
  }
}

async function firstMessage(side, runs) {
  const lib = await api(side);
  const root = box();
  const ms = [];
  for (let i = 0; i < runs + 2; i++) {
    const t0 = performance.now();
    const q = lib.query({ prompt: "hi", options: options(side, root) });
    let first;
    for await (const m of q) {
      if (first === undefined) first = performance.now() - t0;
    }
    if (i >= 2) ms.push(first); // two warm-up runs (module load, JIT)
  }
  return ms;
}

async function perTurn(side, turns) {
  const lib = await api(side);
  const input = new Input();
  const q = lib.query({ prompt: input, options: options(side, box()) });
  const it = q[Symbol.asyncIterator]();
  const turn = async () => {
    const t0 = performance.now();
    input.push("hi");
    for (;;) {
      const { value, done } = await it.next();
      if (done) throw new Error("the session ended");
      if (value.type === "result") return performance.now() - t0;
    }
  };
  for (let i = 0; i < 5; i++) await turn();
  const ms = [];
  for (let i = 0; i < turns; i++) ms.push(await turn());
  input.close();
  for (;;) if ((await it.next()).done) break;
  return ms;
}

function kib(pid, field) {
  try {
    const text = fs.readFileSync(`/proc/${pid}/${field === "Pss" ? "smaps_rollup" : "status"}`, "utf8");
    const m = text.match(new RegExp(`^${field === "Pss" ? "Pss" : "VmRSS"}:\\s+(\\d+) kB`, "m"));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

function children(pid) {
  const out = [];
  for (const e of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${e}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (ppid === pid) out.push(Number(e));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

async function memory(side, n) {
  const lib = await api(side);
  global.gc?.();
  const before = kib(process.pid, "VmRSS");
  const root = box();
  const inputs = [];
  const queries = [];
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const input = new Input();
    inputs.push(input);
    queries.push(lib.query({ prompt: input, options: options(side, root) }));
  }
  // Connected: every session has answered initialize.
  await Promise.all(queries.map((q) => q.initializationResult()));
  const openMs = performance.now() - t0;
  global.gc?.();
  const self = kib(process.pid, "VmRSS");
  const kids = children(process.pid);
  const childPss = kids.reduce((s, pid) => s + kib(pid, "Pss"), 0);
  for (const q of queries) q.close();
  return { n, openMs, selfMiB: (self - before) / 1024, children: kids.length, childPssMiB: childPss / 1024 };
}

// ------------------------------------------------------------------- parent side

function runChild(args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--expose-gc", fileURLToPath(import.meta.url), "--child", ...args], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "inherit"],
    });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.on("exit", (code) => (code === 0 ? resolve(JSON.parse(out.trim().split("\n").at(-1))) : reject(new Error(`${args.join(" ")}: exit ${code}`))));
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p90 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.9))];
const fmt = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));

function memAvailableMiB() {
  const m = fs.readFileSync("/proc/meminfo", "utf8").match(/^MemAvailable:\s+(\d+) kB/m);
  return m ? Number(m[1]) / 1024 : 0;
}

async function main() {
  if (process.argv[2] === "--child") {
    const [, , , what, side, arg] = process.argv;
    const n = Number(arg);
    const value = what === "first" ? await firstMessage(side, n) : what === "turn" ? await perTurn(side, n) : await memory(side, n);
    process.stdout.write(`${JSON.stringify(value)}\n`);
    process.exit(0);
  }
  if (!fs.existsSync(DCL)) throw new Error(`no ${DCL}: cargo build --release -p dcl-cli`);
  const env = { NAPI_RS_NATIVE_LIBRARY_PATH: addonPath() };
  const runs = QUICK ? 5 : 20;
  const turns = QUICK ? 10 : 50;
  const version = execFileSync(DCL, ["-v"], { encoding: "utf8" }).trim();
  console.log(`# dcl ${version}; node ${process.version}; ${os.cpus().length} cores; ${runs} first-message runs, ${turns} turns`);
  const rows = [];
  for (const side of ["inprocess", "subprocess"]) {
    const first = await runChild(["first", side, String(runs)], env);
    const turn = await runChild(["turn", side, String(turns)], env);
    rows.push({ side, first, turn });
    console.log(`${side}: first message median ${fmt(median(first))} ms (p90 ${fmt(p90(first))}); turn median ${fmt(median(turn))} ms (p90 ${fmt(p90(turn))})`);
  }
  const mem = [];
  for (const n of [100, 1000]) {
    for (const side of ["inprocess", "subprocess"]) {
      if (side === "subprocess" && n === 1000) {
        // Guard: 1,000 dcl processes need several GiB on a shared machine.
        const small = mem.find((m) => m.side === side && m.n === 100);
        const need = small ? ((small.selfMiB + small.childPssMiB) * 10 * 1.5) : 8192;
        if (memAvailableMiB() < need + 2048) {
          console.log(`subprocess x${n}: skipped, needs ~${fmt(need)} MiB, ${fmt(memAvailableMiB())} MiB available`);
          continue;
        }
      }
      const m = await runChild(["memory", side, String(n)], env);
      mem.push({ side, ...m });
      console.log(
        `${side} x${n}: this process +${fmt(m.selfMiB)} MiB, ${m.children} children ${fmt(m.childPssMiB)} MiB (PSS); total ${fmt(m.selfMiB + m.childPssMiB)} MiB; opened in ${fmt(m.openMs)} ms`,
      );
    }
  }
  console.log("\n| measure | in-process | subprocess (SDK + dcl CLI) |\n|---|---|---|");
  const [ip, sp] = rows;
  console.log(`| time to first message, median (p90) | ${fmt(median(ip.first))} ms (${fmt(p90(ip.first))}) | ${fmt(median(sp.first))} ms (${fmt(p90(sp.first))}) |`);
  console.log(`| one turn on a connected session, median (p90) | ${fmt(median(ip.turn))} ms (${fmt(p90(ip.turn))}) | ${fmt(median(sp.turn))} ms (${fmt(p90(sp.turn))}) |`);
  for (const n of [100, 1000]) {
    const cell = (side) => {
      const m = mem.find((x) => x.side === side && x.n === n);
      return m ? `${fmt(m.selfMiB + m.childPssMiB)} MiB (opened in ${fmt(m.openMs)} ms)` : "skipped (memory guard)";
    };
    console.log(`| memory, ${n} connected sessions | ${cell("inprocess")} | ${cell("subprocess")} |`);
  }
  if (env.NAPI_RS_NATIVE_LIBRARY_PATH.includes("dcl-node-bench-")) fs.rmSync(env.NAPI_RS_NATIVE_LIBRARY_PATH, { force: true });
}

await main();
