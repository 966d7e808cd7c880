// The path decision holds through aliases in process: a deny rule naming a symlink binds on
// every name of the file, a write through a link to a protected file is refused, and the
// positive twins (an ordinary link inside the project) still work.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { test } from "node:test";

import { query } from "../dist/esm/index.mjs";
import { collect, mockOptions, sandbox, texts } from "./helpers.mjs";

const SECRET = "API_KEY=hunter2";

/** The tool_result blocks the session sent back to the model. */
const toolResults = (ms) =>
  ms
    .filter((m) => m.type === "user" && Array.isArray(m.message.content))
    .flatMap((m) => m.message.content.filter((b) => b.type === "tool_result"));

function plantEnvLink(box) {
  fs.mkdirSync(path.join(box.cwd, "config"));
  fs.writeFileSync(path.join(box.cwd, "config", "dev.env"), `${SECRET}\n`);
  fs.symlinkSync("config/dev.env", path.join(box.cwd, ".env"));
}

test("a deny rule naming a link binds on the link and on its target", async () => {
  const box = sandbox();
  plantEnvLink(box);
  for (const p of [".env", "config/dev.env"]) {
    const ms = await collect(
      query({ prompt: `FAKE_READ ${p}`, options: mockOptions(box, { disallowedTools: ["Read(./.env)"] }) }),
    );
    const [result] = toolResults(ms);
    assert.equal(result.is_error, true, p);
    assert.ok(!JSON.stringify(result.content).includes(SECRET), p);
    assert.ok(!texts(ms).join("").includes(SECRET), p);
  }
});

test("positive twin: a link the rules do not name reads", async () => {
  const box = sandbox();
  plantEnvLink(box);
  fs.mkdirSync(path.join(box.cwd, "notes"));
  fs.writeFileSync(path.join(box.cwd, "notes", "plain.txt"), "just notes\n");
  fs.symlinkSync("notes/plain.txt", path.join(box.cwd, "link.txt"));
  const ms = await collect(
    query({ prompt: "FAKE_READ link.txt", options: mockOptions(box, { disallowedTools: ["Read(./.env)"] }) }),
  );
  const [result] = toolResults(ms);
  assert.notEqual(result.is_error, true);
  assert.match(JSON.stringify(result.content), /just notes/);
});

test("a write through a link to a protected file is refused", async () => {
  const box = sandbox();
  fs.mkdirSync(path.join(box.cwd, ".claude"));
  const settings = path.join(box.cwd, ".claude", "settings.json");
  fs.writeFileSync(settings, "{}\n");
  fs.symlinkSync(".claude/settings.json", path.join(box.cwd, "notes.txt"));
  const ms = await collect(
    query({ prompt: "FAKE_WRITE notes.txt", options: mockOptions(box, { permissionMode: "acceptEdits" }) }),
  );
  assert.equal(toolResults(ms)[0].is_error, true);
  assert.equal(fs.readFileSync(settings, "utf8"), "{}\n");
});

test("positive twin: a write through an ordinary link lands in its target", async () => {
  const box = sandbox();
  fs.mkdirSync(path.join(box.cwd, "docs"));
  fs.writeFileSync(path.join(box.cwd, "docs", "out.txt"), "old\n");
  fs.symlinkSync("docs/out.txt", path.join(box.cwd, "out.txt"));
  const ms = await collect(
    query({ prompt: "FAKE_WRITE out.txt", options: mockOptions(box, { permissionMode: "acceptEdits" }) }),
  );
  assert.notEqual(toolResults(ms)[0].is_error, true);
  assert.equal(fs.readFileSync(path.join(box.cwd, "docs", "out.txt"), "utf8"), "hello\n");
});

test("a name that only resembles a protected one is written", async () => {
  const box = sandbox();
  fs.mkdirSync(path.join(box.cwd, "my.claude"));
  const ms = await collect(
    query({
      prompt: "FAKE_WRITE my.claude/settings.json",
      options: mockOptions(box, { permissionMode: "acceptEdits" }),
    }),
  );
  assert.notEqual(toolResults(ms)[0].is_error, true);
  assert.equal(fs.readFileSync(path.join(box.cwd, "my.claude", "settings.json"), "utf8"), "hello\n");
});
