// One worker of store-workers.test.mjs, run as its own process (its own HOME: another
// machine): one turn through the in-process addon, on a model at `baseUrl`, with the
// session store `store`; resumes `resume` when given. Prints the result as one JSON line.
//   node store-worker.mjs '{"cwd": ..., "baseUrl": ..., "store": ..., "prompt": ..., "resume": null}'
import { query } from "../dist/esm/index.mjs";

const args = JSON.parse(process.argv[2]);
const options = {
  model: "claude-test",
  cwd: args.cwd,
  baseUrl: args.baseUrl,
  apiKey: "sk-ant-test",
  sessionStore: args.store,
  ...(args.resume ? { resume: args.resume } : {}),
};
let result;
for await (const m of query({ prompt: args.prompt, options })) {
  if (m.type === "result") result = m;
}
if (!result) {
  process.stderr.write("no result message\n");
  process.exit(1);
}
process.stdout.write(`${JSON.stringify({ subtype: result.subtype, session_id: result.session_id, result: result.result })}\n`);
