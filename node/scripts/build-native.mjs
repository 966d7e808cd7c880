// Builds the addon (bindings/node) with @napi-rs/cli into native/:
//   native/dcl-node.<platform>.node, native/binding.cjs (the loader), native/binding.d.ts
// The Rust sources are the repository's (../) in a checkout, or rust/ inside a packed
// tarball (written by scripts/prepack.mjs). `--release` builds optimised; `--target <triple>`
// is passed to napi (which names the host triple anyway).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const pkg = join(dirname(fileURLToPath(import.meta.url)), "..");
const packed = join(pkg, "rust");
const root = existsSync(join(packed, "Cargo.toml")) ? packed : join(pkg, "..");
const manifest = join(root, "bindings", "node", "Cargo.toml");
if (!existsSync(manifest)) {
  console.error(`@dcl/agent: no Rust sources at ${manifest}`);
  process.exit(1);
}
const cli = createRequire(import.meta.url).resolve("@napi-rs/cli/package.json");
const napi = join(dirname(cli), "dist", "cli.js");
const args = [
  napi,
  "build",
  "--platform",
  "--manifest-path", manifest,
  "--package-json-path", join(pkg, "package.json"),
  "--target-dir", process.env.CARGO_TARGET_DIR || join(root, "target"),
  "--output-dir", join(pkg, "native"),
  "--js", "binding.cjs",
  "--dts", "binding.d.ts",
  ...(process.argv.includes("--release") ? ["--release"] : []),
];
// --target <triple>: passed on (scripts/dist.sh builds every artifact for one named target).
const t = process.argv.indexOf("--target");
if (t > 0 && process.argv[t + 1]) args.push("--target", process.argv[t + 1]);
const run = spawnSync(process.execPath, args, { stdio: "inherit", cwd: pkg });
process.exit(run.status ?? 1);
