// @anthropic-ai/claude-agent-sdk driving the dcl executable of the npm platform package
// (pathToClaudeCodeExecutable = dclPath()), with canUseTool allowing a Write.
//   node sdk.mjs <expected-version> <work-dir>
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { query } from "@anthropic-ai/claude-agent-sdk";
import { dclPath } from "@dcl/agent";

const [, work] = process.argv.slice(2);
const home = path.join(work, "home");
fs.mkdirSync(home, { recursive: true });
const target = path.join(work, "ts-sdk.txt");
const asked = [];
const canUseTool = async (name, input) => {
  asked.push(name);
  return { behavior: "allow", updatedInput: input };
};
const env = { ...process.env, HOME: home };
delete env.ANTHROPIC_API_KEY;
const results = [];
const exe = dclPath();
for await (const m of query({
  prompt: `please FAKE_WRITE ${target}`,
  options: { pathToClaudeCodeExecutable: exe, model: "mock-model", cwd: work, permissionMode: "default", canUseTool, env },
})) {
  if (m.type === "result") results.push(m);
}
assert.deepEqual(asked, ["Write"]);
assert.ok(fs.existsSync(target), "the allowed Write left its file");
assert.equal(results.length, 1);
assert.equal(results[0].is_error, false, JSON.stringify(results[0]));
console.log(`ok: claude-agent-sdk drove ${exe} (Write allowed, file written)`);
