// Builds the addon (bindings/node) with @napi-rs/cli into native/:
//   native/dcl-node.<platform>.node, native/binding.cjs (the loader), native/binding.d.ts
// The Rust sources are the repository's (../) in a checkout, or rust/ inside a packed
// tarball (written by scripts/prepack.mjs). `--release` builds optimised; `--target <triple>`
// is passed to napi (which names the host triple anyway).
//
// `--cargo`: build the addon with plain `cargo build -p dcl-node` into the workspace's own
// target/ and copy it next to the committed loader and types (native/binding.cjs and
// binding.d.ts, which napi generates and scripts/dist.sh checks are current). napi always
// passes `--target <triple>`, which puts the build in target/<triple>/ and compiles every
// dependency a second time; in CI's debug phase, where `cargo build --workspace` has built
// the addon already, that second build was three minutes of two cores. `--cargo --workspace`
// builds the whole workspace instead of `-p dcl-node` (same features as CI's build: no-op).
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
if (process.argv.includes("--cargo")) {
  for (const f of ["binding.cjs", "binding.d.ts"]) {
    if (!existsSync(join(pkg, "native", f))) {
      console.error(`@dcl/agent: native/${f} is missing (run \`npm run build:native\` once)`);
      process.exit(1);
    }
  }
  const { buildAddon } = await import("./install.mjs");
  process.exit(
    buildAddon({
      manifestPath: join(root, "Cargo.toml"),
      targetDir: process.env.CARGO_TARGET_DIR || join(root, "target"),
      release: process.argv.includes("--release"),
      workspace: process.argv.includes("--workspace"),
    }),
  );
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
