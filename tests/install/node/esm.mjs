// ESM user of @dcl/agent (installed from the tarballs): an in-process query on the mock model
// with a canUseTool callback that allows a Write; the file must appear. Also checks that the
// addon came from the prebuilt platform package unless EXPECT_ADDON says otherwise.
//   node esm.mjs <expected-version> <work-dir>
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { query, versions, dclPath } from "@dcl/agent";

const [version, work] = process.argv.slice(2);
fs.mkdirSync(path.join(work, "home"), { recursive: true });
const target = path.join(work, "esm.txt");
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
assert.deepEqual(asked, ["Write"], "canUseTool saw one Write");
assert.ok(fs.existsSync(target), "the allowed Write left its file");
assert.equal(results.length, 1);
assert.equal(results[0].is_error, false, JSON.stringify(results[0]));
const v = versions();
assert.equal(v.dcl.split(/\s/)[0].replace(/^v/, ""), version, `addon version ${JSON.stringify(v)}`);

const require = createRequire(import.meta.url);
const expect = process.env.EXPECT_ADDON ?? "prebuilt";
const agentDir = path.dirname(require.resolve("@dcl/agent/package.json"));
const local = fs.existsSync(agentDir + "/native") && fs.readdirSync(agentDir + "/native").filter((f) => f.endsWith(".node"));
if (expect === "prebuilt") {
  assert.deepEqual(local, [], "no addon built into @dcl/agent/native: the prebuilt one is used");
  require.resolve("@dcl/agent-linux-x64-gnu");
  const exe = dclPath();
  assert.ok(exe.includes(path.join("@dcl", "agent-linux-x64-gnu", "bin", "dcl")), exe);
} else {
  assert.deepEqual(local, ["dcl-node.linux-x64-gnu.node"], "the source fallback built the addon");
}
console.log(`ok: ESM query with canUseTool (Write allowed, file written), addon ${expect}, dcl ${v.dcl}`);
