// `npm install` hook. Inside a packed tarball (rust/ is there) with no addon built yet, it
// builds the addon from the bundled Rust sources (release; needs cargo). In a repository
// checkout it does nothing: `npm run build` builds there.
import { existsSync, readdirSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const pkg = join(dirname(fileURLToPath(import.meta.url)), "..");
if (!existsSync(join(pkg, "rust", "Cargo.toml"))) {
  console.log("@dcl/agent: repository checkout, run `npm run build` to build the addon");
  process.exit(0);
}
const nativeDir = join(pkg, "native");
if (existsSync(nativeDir) && readdirSync(nativeDir).some((f) => f.endsWith(".node"))) process.exit(0);
// DCL_NODE_DEBUG_BUILD=1 builds unoptimised (faster to build, for trying a tarball out).
const release = process.env.DCL_NODE_DEBUG_BUILD !== "1";
console.log(`@dcl/agent: building the native addon from source (cargo, ${release ? "release" : "debug"})...`);
const args = [join(pkg, "scripts", "build-native.mjs"), ...(release ? ["--release"] : [])];
const run = spawnSync(process.execPath, args, { stdio: "inherit" });
process.exit(run.status ?? 1);
