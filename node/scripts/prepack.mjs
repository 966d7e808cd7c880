// `npm pack` hook: compiles the TypeScript and copies the Rust sources the addon needs into
// rust/ (a workspace of just those crates, with the repository's Cargo.lock), so the
// tarball builds its native part on install. `--clean` removes rust/ again (postpack).
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const pkg = join(dirname(fileURLToPath(import.meta.url)), "..");
const repo = join(pkg, "..");
const out = join(pkg, "rust");
rmSync(out, { recursive: true, force: true });
if (process.argv.includes("--clean")) process.exit(0);

const build = spawnSync("npm", ["run", "build:ts"], { cwd: pkg, stdio: "inherit" });
if (build.status !== 0) process.exit(build.status ?? 1);

// The addon's crates, the crates they depend on (dev-dependencies included: cargo resolves
// them for every workspace member), and the two CLI files the spawn adapter compiles in.
const crates = ["core/protocol", "core/engine", "core/bridge", "core/mcp", "core/test-support", "bindings/node"];
mkdirSync(out, { recursive: true });
const skip = (src) => !/[\\/](target|node_modules|tests|fuzz)([\\/]|$)/.test(src.slice(repo.length));
for (const crate of crates) cpSync(join(repo, crate), join(out, crate), { recursive: true, filter: skip });
mkdirSync(join(out, "cli", "src"), { recursive: true });
for (const f of ["args.rs", "options.rs"]) cpSync(join(repo, "cli", "src", f), join(out, "cli", "src", f));
cpSync(join(repo, "Cargo.lock"), join(out, "Cargo.lock"));
for (const f of ["rustfmt.toml", "clippy.toml"]) if (existsSync(join(repo, f))) cpSync(join(repo, f), join(out, f));

const manifest = readFileSync(join(repo, "Cargo.toml"), "utf8");
const members = `members = [\n${crates.map((c) => `    "${c}",`).join("\n")}\n]`;
const trimmed = manifest
  .replace(/^members = \[[^\]]*\]/m, members)
  .replace(/^default-members = \[[^\]]*\]\n?/m, "")
  .replace(/^exclude = \[[^\]]*\]\n?/m, "");
if (trimmed === manifest) {
  console.error("prepack: could not rewrite the workspace members of Cargo.toml");
  process.exit(1);
}
writeFileSync(join(out, "Cargo.toml"), trimmed);
console.log(`prepack: Rust sources of ${crates.length} crates in rust/`);
