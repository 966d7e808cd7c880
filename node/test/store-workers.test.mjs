// Sessions across machines through the Node addon: two workers, each its own process with
// its own HOME (two machines), share one Postgres or Redis (db-servers.mjs). Worker A runs
// turn 1 in process; worker B, with no local copy, resumes A's session id from the store
// and runs turn 2, and its model request carries turn 1; a third worker then sees turn 2
// (B drained it before its process ended). The model is a fake Anthropic
// endpoint that records every request (fake-model.mjs); the workers are store-worker.mjs.
//
// Under DCL_CLI_PATH (CI's second run) the workers' sessions run in a dcl child driven by
// the same addon, and the same assertions hold.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";

import { startPostgres, startRedis } from "./db-servers.mjs";
import { requestText, startFakeModel } from "./fake-model.mjs";
import { HERE, mkTmp } from "./helpers.mjs";

const run = promisify(execFile);
const WORKER = path.join(HERE, "store-worker.mjs");

/** One project folder (the same path on every machine) and a HOME per worker. */
function cluster(model, store) {
  const root = mkTmp("dcl-node-workers-");
  const cwd = path.join(root, "repo");
  fs.mkdirSync(cwd);
  const home = (worker) => {
    const h = path.join(root, worker);
    fs.mkdirSync(h, { recursive: true });
    return h;
  };
  const env = (worker) => {
    const e = { ...process.env, HOME: home(worker), DCL_RETRY_BASE_MS: "1" };
    for (const k of Object.keys(e)) if (k.startsWith("ANTHROPIC_")) delete e[k];
    for (const k of ["DCL_MODEL", "DCL_CONFIG_DIR", "CLAUDE_CONFIG_DIR", "QODER_CONFIG_DIR"]) delete e[k];
    return e;
  };
  return {
    home,
    async run(worker, prompt, resume = null) {
      const args = JSON.stringify({ cwd, baseUrl: model.baseUrl, store, prompt, resume });
      const { stdout } = await run(process.execPath, [WORKER, args], { env: env(worker), timeout: 120_000 });
      return JSON.parse(stdout.trim().split("\n").at(-1));
    },
    transcript(worker, sessionId) {
      const projects = path.join(home(worker), ".dcl", "projects");
      const found = fs.existsSync(projects)
        ? fs
            .readdirSync(projects)
            .map((p) => path.join(projects, p, `${sessionId}.jsonl`))
            .filter((f) => fs.existsSync(f))
        : [];
      assert.equal(found.length, 1, `worker ${worker}: transcripts of ${sessionId}: ${found}`);
      return fs.readFileSync(found[0], "utf8");
    },
  };
}

async function twoWorkers(storeUrl) {
  const model = await startFakeModel();
  try {
    const c = cluster(model, storeUrl);
    const r1 = await c.run("a", "remember the word walrus");
    assert.equal(r1.subtype, "success", JSON.stringify(r1));
    const sid = r1.session_id;
    assert.match(c.transcript("a", sid), /walrus/);

    assert.equal(fs.existsSync(path.join(c.home("b"), ".dcl")), false);
    const r2 = await c.run("b", "which word?", sid);
    assert.equal(r2.subtype, "success", JSON.stringify(r2));
    assert.equal(r2.session_id, sid);
    const turn2 = model.bodies.map(requestText).filter((t) => t.includes("which word?"));
    assert.ok(turn2.length > 0, `no request of turn 2 among ${model.bodies.length}`);
    assert.match(turn2.at(-1), /walrus/, `turn 1 missing from worker B's request: ${turn2.at(-1)}`);
    // B had no local copy: what it resumed came from the store, into its own layout.
    const localB = c.transcript("b", sid);
    assert.ok(localB.includes("walrus") && localB.includes("which word?"), localB);

    // What B wrote reached the store before B's process was gone: a third machine sees it.
    const r3 = await c.run("c", "and before that?", sid);
    assert.equal(r3.subtype, "success", JSON.stringify(r3));
    const turn3 = model.bodies.map(requestText).filter((t) => t.includes("and before that?"));
    assert.ok(turn3.length > 0, `no request of turn 3 among ${model.bodies.length}`);
    assert.match(turn3.at(-1), /which word\?/, `turn 2 missing from worker C's request: ${turn3.at(-1)}`);
  } finally {
    await model.close();
  }
}

describe("two workers share a session through Postgres", () => {
  let pg;
  before(async () => {
    pg = await startPostgres();
  });
  after(async () => {
    await pg?.stop?.();
  });
  test("worker B resumes worker A's session with its history", async (t) => {
    if (pg.skip) return t.skip(pg.skip);
    await twoWorkers(`${pg.url}&table=w${randomUUID().slice(0, 8)}`);
  });
});

describe("two workers share a session through Redis", () => {
  let redis;
  before(async () => {
    redis = await startRedis();
  });
  after(async () => {
    await redis?.stop?.();
  });
  test("worker B resumes worker A's session with its history", async (t) => {
    if (redis.skip) return t.skip(redis.skip);
    await twoWorkers(`${redis.url}?prefix=w${randomUUID().slice(0, 8)}`);
  });
});
