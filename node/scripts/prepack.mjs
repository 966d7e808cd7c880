// `npm pack` hook (and step of scripts/dist.sh): compiles the TypeScript and copies the Rust
// sources the addon needs into rust/ (a workspace of just those crates, with the repository's
// Cargo.lock), so the tarball can build its native part from source (scripts/install.mjs)
// where no prebuilt @dcl/agent-<platform> package applies. `--clean` removes rust/ again.
//
// The crates come from `cargo metadata`, never from a list written here: dcl-node and every
// workspace crate it reaches through any dependency kind (cargo resolves the dev-dependencies
// of each workspace member too), plus files outside those crates that a crate pulls in with
// `#[path = "..."]` (the spawn adapter compiles cli/src/args.rs and options.rs).
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const pkg = join(dirname(fileURLToPath(import.meta.url)), "..");
const repo = join(pkg, "..");
const out = join(pkg, "rust");
const ROOT_CRATE = "dcl-node";

function fail(msg) {
  console.error(`prepack: ${msg}`);
  process.exit(1);
}

rmSync(out, { recursive: true, force: true });
if (process.argv.includes("--clean")) process.exit(0);

if (!process.argv.includes("--no-ts")) {
  const build = spawnSync("npm", ["run", "build:ts"], { cwd: pkg, stdio: "inherit" });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const meta = spawnSync("cargo", ["metadata", "--format-version", "1", "--no-deps", "--offline"], {
  cwd: repo,
  encoding: "utf8",
  maxBuffer: 64 << 20,
});
if (meta.error || meta.status !== 0) fail(`cargo metadata failed: ${meta.error?.message ?? meta.stderr}`);
const { packages, workspace_root: wsRoot } = JSON.parse(meta.stdout);
const byName = new Map(packages.map((p) => [p.name, p]));
if (!byName.has(ROOT_CRATE)) fail(`cargo metadata has no package ${ROOT_CRATE}`);

// Transitive closure over path dependencies inside the workspace (normal, build and dev).
const needed = new Set();
const queue = [ROOT_CRATE];
while (queue.length) {
  const name = queue.pop();
  if (needed.has(name)) continue;
  needed.add(name);
  for (const dep of byName.get(name).dependencies) {
    if (dep.path && byName.has(dep.name)) queue.push(dep.name);
  }
}
const crates = [...needed].map((n) => relative(wsRoot, dirname(byName.get(n).manifest_path)).split(sep).join("/")).sort();

// Files a crate includes from outside its own directory (`#[path = "../../x.rs"]`).
const outside = new Set();
function scan(dir, crateDir) {
  for (const entry of readdirSync(dir)) {
    const p = join(dir, entry);
    if (statSync(p).isDirectory()) {
      if (entry !== "target") scan(p, crateDir);
    } else if (p.endsWith(".rs")) {
      for (const m of readFileSync(p, "utf8").matchAll(/#\[path\s*=\s*"([^"]+)"\]/g)) {
        const target = resolve(dirname(p), m[1]);
        if (!target.startsWith(crateDir + sep)) {
          if (!existsSync(target)) fail(`${relative(repo, p)} includes missing ${m[1]}`);
          outside.add(relative(wsRoot, target));
        }
      }
    }
  }
}
for (const c of crates) scan(join(wsRoot, c, "src"), join(wsRoot, c));

mkdirSync(out, { recursive: true });
const skip = (src) => !/[\\/](target|node_modules|fuzz)([\\/]|$)/.test(src.slice(wsRoot.length));
for (const crate of crates) cpSync(join(wsRoot, crate), join(out, crate), { recursive: true, filter: skip });
for (const f of outside) {
  mkdirSync(dirname(join(out, f)), { recursive: true });
  cpSync(join(wsRoot, f), join(out, f));
}
cpSync(join(wsRoot, "Cargo.lock"), join(out, "Cargo.lock"));
for (const f of ["rustfmt.toml", "clippy.toml"]) if (existsSync(join(wsRoot, f))) cpSync(join(wsRoot, f), join(out, f));

const manifest = readFileSync(join(wsRoot, "Cargo.toml"), "utf8");
const members = `members = [\n${crates.map((c) => `    "${c}",`).join("\n")}\n]`;
const trimmed = manifest
  .replace(/^members = \[[^\]]*\]/m, members)
  .replace(/^default-members = \[[^\]]*\]\n?/m, "")
  .replace(/^exclude = \[[^\]]*\]\n?/m, "");
if (!trimmed.includes(members) || /^default-members/m.test(trimmed)) fail("could not rewrite the workspace members of Cargo.toml");
writeFileSync(join(out, "Cargo.toml"), trimmed);

// The copy must resolve as a workspace on its own (offline: the lock file is the repository's).
const check = spawnSync("cargo", ["metadata", "--format-version", "1", "--no-deps", "--offline"], { cwd: out, encoding: "utf8", maxBuffer: 64 << 20 });
if (check.status !== 0) fail(`rust/ is not a complete workspace:\n${check.stderr}`);
console.log(`prepack: Rust sources of ${crates.length} crates (${crates.join(", ")}) and ${outside.size} outside files in rust/`);
