// Postgres and redis-server for the session-store tests, started on 127.0.0.1 in temp
// dirs and stopped by the caller (Postgres through initdb as an unprivileged user when run
// as root, since Postgres refuses root). Not a test file itself.
//
// A server whose binaries are not installed gives `{ skip: "<clear message>" }`, except
// under CI=true, where that is an error (.ci/run installs them).
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";

import { mkTmp } from "./helpers.mjs";

const isRoot = typeof process.geteuid === "function" && process.geteuid() === 0;

function which(name) {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    const p = path.join(dir, name);
    if (dir && fs.existsSync(p)) return p;
  }
  // Debian keeps the server binaries off PATH, under /usr/lib/postgresql/<major>/bin.
  const pg = "/usr/lib/postgresql";
  if (fs.existsSync(pg)) {
    const majors = fs.readdirSync(pg).sort((a, b) => Number(b) - Number(a));
    for (const m of majors) {
      const p = path.join(pg, m, "bin", name);
      if (fs.existsSync(p)) return p;
    }
  }
  return undefined;
}

function missing(what) {
  const msg = `*** ${what} is not installed: session store tests SKIPPED ***`;
  if (process.env.CI === "true") throw new Error(`${msg} (CI=true: refusing to skip)`);
  process.stderr.write(`${msg}\n`);
  return { skip: msg };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function connects(port) {
  return new Promise((resolve) => {
    const c = net.connect({ host: "127.0.0.1", port });
    c.once("connect", () => {
      c.destroy();
      resolve(true);
    });
    c.once("error", () => resolve(false));
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Waits until the server takes connections; throws if it exits or never does. */
async function waitFor(port, child, what) {
  let exited = null;
  child.once("exit", (code) => {
    exited = code ?? "signal";
  });
  for (let i = 0; i < 600; i++) {
    if (exited !== null) throw new Error(`${what} exited (${exited}) before it served`);
    if (await connects(port)) {
      // Postgres accepts a connection a moment before it finishes starting up.
      await sleep(300);
      return;
    }
    await sleep(50);
  }
  throw new Error(`${what}: nothing listening on 127.0.0.1:${port}`);
}

function stopped(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
}

const asDbUser = (cmd) => (isRoot ? ["runuser", "-u", "nobody", "--", ...cmd] : cmd);

/** `{ url, stop }` of a fresh Postgres (database `postgres`, user `dcl`, trust auth), or `{ skip }`. */
export async function startPostgres() {
  const initdb = which("initdb");
  const postgres = which("postgres");
  if (!initdb || !postgres) return missing("Postgres (initdb, postgres)");
  const dir = mkTmp("dcl-nodepg-");
  if (isRoot) spawnSync("chown", ["nobody", dir]);
  const [cmd, ...args] = asDbUser([initdb, "-U", "dcl", "--auth=trust", "--no-sync", "-D", `${dir}/data`]);
  const init = spawnSync(cmd, args, { encoding: "utf8" });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.error}`);
  const port = await freePort();
  const [pcmd, ...pargs] = asDbUser([postgres, "-D", `${dir}/data`, "-p", String(port), "-h", "127.0.0.1", "-k", dir, "-c", "fsync=off"]);
  const child = spawn(pcmd, pargs, { stdio: "ignore" });
  const stop = async () => {
    // SIGINT is Postgres's fast shutdown; runuser passes it on to the server.
    const pidFile = path.join(dir, "data", "postmaster.pid");
    if (fs.existsSync(pidFile)) {
      const pid = Number(fs.readFileSync(pidFile, "utf8").split("\n")[0]);
      if (pid > 0) {
        try {
          process.kill(pid, "SIGINT");
        } catch {
          // already gone
        }
      }
    } else child.kill("SIGINT");
    await stopped(child);
  };
  try {
    await waitFor(port, child, "postgres");
  } catch (e) {
    await stop();
    throw e;
  }
  return { url: `postgres://dcl@127.0.0.1:${port}/postgres?sslmode=disable`, stop };
}

/** `{ url, stop }` of a fresh redis-server (no persistence), or `{ skip }`. */
export async function startRedis() {
  const server = which("redis-server");
  if (!server) return missing("redis-server");
  const dir = mkTmp("dcl-noderedis-");
  const port = await freePort();
  const child = spawn(server, ["--bind", "127.0.0.1", "--port", String(port), "--save", "", "--appendonly", "no", "--dir", dir], {
    stdio: "ignore",
  });
  const stop = async () => {
    child.kill("SIGTERM");
    await stopped(child);
  };
  try {
    await waitFor(port, child, "redis-server");
  } catch (e) {
    await stop();
    throw e;
  }
  return { url: `redis://127.0.0.1:${port}/0`, stop };
}
