// CommonJS user of @dcl/agent: the same query through require().
//   node cjs.cjs <expected-version> <work-dir>
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const { query, dclPath } = require("@dcl/agent");

(async () => {
  const [, work] = process.argv.slice(2);
  fs.mkdirSync(path.join(work, "home"), { recursive: true });
  const target = path.join(work, "cjs.txt");
  const asked = [];
  const canUseTool = async (name, input) => {
    asked.push(name);
    return { behavior: "allow", updatedInput: input };
  };
  const results = [];
  for await (const m of query({
    prompt: `please FAKE_WRITE ${target}`,
    options: { model: "mock-model", cwd: work, permissionMode: "default", canUseTool, env: { HOME: path.join(work, "home") } },
  })) {
    if (m.type === "result") results.push(m);
  }
  assert.deepEqual(asked, ["Write"]);
  assert.ok(fs.existsSync(target), "the allowed Write left its file");
  assert.equal(results.length, 1);
  assert.equal(results[0].is_error, false);
  assert.ok(fs.statSync(dclPath()).mode & 0o111, "the packaged dcl is executable");
  console.log("ok: CJS query with canUseTool (Write allowed, file written)");
})().catch((e) => {
  console.error(e);
  process.exit(1);
});
