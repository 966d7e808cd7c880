// Shared helpers for the Node conformance tests (not a test file itself).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

export const HERE = path.dirname(fileURLToPath(import.meta.url));
export const REPO = path.resolve(HERE, '..', '..', '..');
/** The dcl binary. */
export const REAL_DCL = path.resolve(process.env.DCL_BIN || path.join(REPO, 'target', 'debug', 'dcl'));

/**
 * The CLI path the SDKs get. Unless DCL_RECORD=0, it is tests/conformance/trace-dcl.sh, which
 * records each session's stream-json traffic under DCL_RECORD_DIR (default
 * <repo>/tests/.work/recorded) in node-<test file>/, cleared when the file starts;
 * tests/run-all.sh then validates every line dcl wrote against the protocol schema.
 */
export const DCL = recordingCli();

function recordingCli() {
  if (process.env.DCL_RECORD === '0') return REAL_DCL;
  const root = process.env.DCL_RECORD_DIR || path.join(REPO, 'tests', '.work', 'recorded');
  // node --test runs each test file in a process of its own: one directory per file.
  const file = path.basename(process.argv[1] || 'node', '.mjs').replace(/\.test$/, '');
  const out = path.join(root, `node-${file}`);
  fs.rmSync(out, { recursive: true, force: true });
  fs.mkdirSync(out, { recursive: true });
  // childEnv() copies process.env, so the wrapper finds these.
  process.env.DCL_REAL_BIN = REAL_DCL;
  process.env.DCL_TRACE_DIR = out;
  return path.join(REPO, 'tests', 'conformance', 'trace-dcl.sh');
}

/** What the mock model answers to a prompt without a trigger word. */
export const HELLO = 'Hello from the fake model.';
/** What the mock model answers after a tool result. */
export const DONE_RE = /^Done\. The tool result had \d+ chars\.$/;
/** Upper bound for one scenario (turns a hang into a failure). */
export const TIMEOUT_MS = Number(process.env.DCL_CONFORMANCE_TIMEOUT || 60) * 1000;

/** Fail early and clearly when the binary is missing or broken. */
export function checkDcl() {
  assert.ok(fs.existsSync(REAL_DCL), `dcl binary not found at ${REAL_DCL}: build it or set DCL_BIN`);
  const r = spawnSync(DCL, ['-v'], { encoding: 'utf8', timeout: 5000 });
  assert.equal(r.status, 0, `dcl -v failed: ${r.error ?? r.stderr}`);
}

const roots = [];
/** One scratch HOME per test file; removed at exit. */
export const HOME = mkTmp('dcl-conf-home-');
process.on('exit', () => {
  for (const d of roots) fs.rmSync(d, { recursive: true, force: true });
});

export function mkTmp(prefix = 'dcl-conf-') {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  roots.push(d);
  return fs.realpathSync(d);
}

/** The child's environment: ours, with a scratch HOME and no real credentials. */
export function childEnv() {
  const env = { ...process.env, HOME, XDG_CONFIG_HOME: path.join(HOME, '.config') };
  for (const k of [
    'ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CONFIG_DIR', 'QODER_CONFIG_DIR',
    'QODERCLI_PATH', 'CLAUDECODE', 'CLAUDE_CODE_ENTRYPOINT', 'QODER_AGENT_SDK_ENTRYPOINT',
    'NODE_TEST_CONTEXT',
  ]) delete env[k];
  return env;
}

/** A user message for streaming-input mode. */
export function userMessage(text) {
  return {
    type: 'user',
    message: { role: 'user', content: text },
    parent_tool_use_id: null,
    session_id: '',
  };
}

/** A push-driven AsyncIterable of user messages (the streaming-input prompt). */
export class Input {
  #items = [];
  #waiters = [];
  #closed = false;
  push(text) { this.#offer({ value: userMessage(text), done: false }); }
  close() { this.#closed = true; this.#offer({ value: undefined, done: true }); }
  #offer(r) {
    const w = this.#waiters.shift();
    if (w) w(r); else this.#items.push(r);
  }
  [Symbol.asyncIterator]() {
    return {
      next: () => {
        if (this.#items.length) return Promise.resolve(this.#items.shift());
        if (this.#closed) return Promise.resolve({ value: undefined, done: true });
        return new Promise((res) => this.#waiters.push(res));
      },
      return: () => { this.#closed = true; return Promise.resolve({ value: undefined, done: true }); },
    };
  }
}

/** Reads a Query (AsyncGenerator of SDK messages) turn by turn. */
export class Reader {
  constructor(q) { this.it = q[Symbol.asyncIterator](); this.all = []; }
  /** Messages up to and including the next `result`; `onMessage` sees each one. */
  async untilResult(what, onMessage = () => {}) {
    const msgs = [];
    for (;;) {
      const { value, done } = await within(this.it.next(), what);
      assert.ok(!done, `stream ended before a result (${what}); got ${JSON.stringify(msgs)}`);
      msgs.push(value);
      this.all.push(value);
      await onMessage(value);
      if (value.type === 'result') return msgs;
    }
  }
  /** Drain to the end of the stream (after the input was closed). */
  async rest(what) {
    const msgs = [];
    for (;;) {
      const { value, done } = await within(this.it.next(), what);
      if (done) return msgs;
      msgs.push(value);
    }
  }
}

export async function collect(q, what) {
  return new Reader(q).rest(what);
}

export function within(promise, what, ms = TIMEOUT_MS) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, rej) => {
      timer = setTimeout(() => rej(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

export const results = (msgs) => msgs.filter((m) => m.type === 'result');

/** Joined text of each assistant message that has text blocks. */
export function assistantTexts(msgs) {
  const out = [];
  for (const m of msgs) {
    if (m.type !== 'assistant') continue;
    const content = m.message?.content;
    if (!Array.isArray(content)) continue;
    const t = content.filter((b) => b.type === 'text').map((b) => b.text).join('');
    if (t) out.push(t);
  }
  return out;
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Test definer for one SDK: `t(name, fn, opts)` defines a test labelled `${label}: ${name}`
 * (extra node:test options such as `skip`/`todo` in `opts`), and `start(prompt, options)`
 * opens a query. Every query a test opens is closed afterwards, also when an assertion
 * failed mid-conversation, so a failing test cannot leave dcl running (which would keep
 * the test file's process alive).
 */
export function harness(label, query) {
  let opened = [];
  const start = (prompt, options) => {
    const q = query({ prompt, options });
    opened.push({ q, prompt });
    return q;
  };
  const t = (name, fn, opts = {}) => test(
    `${label}: ${name}`,
    { timeout: TIMEOUT_MS * 2, ...opts },
    async () => {
      opened = [];
      try {
        await fn();
      } finally {
        for (const { q, prompt } of opened) {
          if (prompt instanceof Input) prompt.close();
          try {
            await within(Promise.resolve(q.close?.()), 'query.close()', 10000);
          } catch {
            // already failed or closed: nothing more to do
          }
        }
      }
    },
  );
  return { t, start };
}
