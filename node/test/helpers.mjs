// Shared helpers for the @dcl/agent tests (not a test file itself).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const HERE = path.dirname(fileURLToPath(import.meta.url));
export const PKG = path.resolve(HERE, "..");
export const REPO = path.resolve(PKG, "..");
export const DCL_BIN = path.resolve(process.env.DCL_BIN || path.join(REPO, "target", "debug", "dcl"));
export const HELLO = "Hello from the fake model.";
export const DONE_RE = /^Done\. The tool result had \d+ chars\.$/;

const roots = [];
process.on("exit", () => {
  for (const d of roots) fs.rmSync(d, { recursive: true, force: true });
});

export function mkTmp(prefix = "dcl-node-") {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  roots.push(d);
  return fs.realpathSync(d);
}

/** A scratch working directory and HOME, so no user settings or memory files join in. */
export function sandbox() {
  const root = mkTmp();
  const cwd = path.join(root, "work");
  const home = path.join(root, "home");
  fs.mkdirSync(cwd);
  fs.mkdirSync(home);
  return { root, cwd, home };
}

/** Options on the mock model inside a sandbox. */
export function mockOptions(box, extra = {}) {
  return { model: "mock-model", cwd: box.cwd, ...extra, env: { HOME: box.home, ...(extra.env ?? {}) } };
}

export async function collect(q) {
  const out = [];
  for await (const m of q) out.push(m);
  return out;
}

/** Collects until the query ends or throws; returns the messages and the error. */
export async function collectSettled(q) {
  const out = [];
  try {
    for await (const m of q) out.push(m);
    return { messages: out, error: undefined };
  } catch (error) {
    return { messages: out, error };
  }
}

export const results = (ms) => ms.filter((m) => m.type === "result");

export function texts(ms) {
  return ms
    .filter((m) => m.type === "assistant")
    .flatMap((m) => m.message.content)
    .filter((b) => b.type === "text")
    .map((b) => b.text);
}

export function toolUses(ms) {
  return ms
    .filter((m) => m.type === "assistant")
    .flatMap((m) => m.message.content)
    .filter((b) => b.type === "tool_use");
}

/** A push-driven AsyncIterable of user messages (a streaming prompt). */
export class Input {
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
      next: () => {
        if (this.#items.length) return Promise.resolve(this.#items.shift());
        if (this.#closed) return Promise.resolve({ value: undefined, done: true });
        return new Promise((res) => this.#waiters.push(res));
      },
      return: () => {
        this.#closed = true;
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}

/** This process's child processes (pid, command name), read from /proc. */
export function childProcesses(pid = process.pid) {
  const out = [];
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat;
    try {
      stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // gone meanwhile
    }
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses.
    const close = stat.lastIndexOf(")");
    const comm = stat.slice(stat.indexOf("(") + 1, close);
    const ppid = Number(stat.slice(close + 2).split(" ")[1]);
    if (ppid === pid) out.push({ pid: Number(entry), comm });
  }
  return out;
}

/** The containment keeper of a tool process (core/sandbox names it so): a fork that
 * waits for the tool's shell, never a dcl CLI. */
export const TOOL_KEEPER = "dcl-tool-keeper";

/** Whether a child's command name is a dcl or Claude CLI (what in-process must never start):
 * an executed `dcl` or `claude*` binary. Forks of dcl's own threads that have not executed
 * anything yet carry the thread's name (`dcl-rt`, the keeper's `dcl-tool-keeper`, the
 * sandbox probe's children) and are not CLIs. */
export const isCliProcess = (comm) => comm === "dcl" || /^claude/.test(comm);

/** Samples the children every few ms while `fn` runs; returns what `fn` gave and every child seen. */
export async function watchChildren(fn, everyMs = 5) {
  const seen = new Map();
  const timer = setInterval(() => {
    for (const c of childProcesses()) seen.set(c.pid, c.comm);
  }, everyMs);
  try {
    const value = await fn();
    for (const c of childProcesses()) seen.set(c.pid, c.comm);
    return { value, children: [...seen.values()] };
  } finally {
    clearInterval(timer);
  }
}
