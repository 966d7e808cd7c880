// `npm install` hook of @dcl/agent.
//   - A repository checkout (no rust/): nothing to do, `npm run build` builds there.
//   - The prebuilt addon applies (the optional dependency @dcl/agent-<platform> is installed,
//     or native/ already has an addon): nothing to do. No Rust toolchain is needed.
//   - Otherwise, or when forced with DCL_NODE_BUILD_FROM_SOURCE=1: build the addon from the
//     Rust sources in rust/ (written by scripts/prepack.mjs) with cargo, into
//     native/dcl-node.<platform>.node, which native/binding.cjs loads first.
// DCL_NODE_DEBUG_BUILD=1 builds unoptimised (faster; for trying the fallback out).
// CARGO_TARGET_DIR is honoured (default: rust/target).
// scripts/build-native.mjs (a checkout's `--cargo` build) imports `platformName` and
// `buildAddon` from here, so the hook runs only when this file is the program.
import { copyFileSync, existsSync, mkdirSync, readdirSync, realpathSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const pkg = join(dirname(fileURLToPath(import.meta.url)), "..");
const rust = join(pkg, "rust");
const nativeDir = join(pkg, "native");

/** The prebuilt package's platform (napi-rs's names; src/native.ts's platformName). */
export function platformName() {
  const { platform, arch } = process;
  if (platform === "linux") {
    const glibc = process.report?.getReport()?.header?.glibcVersionRuntime;
    return `linux-${arch}-${glibc ? "gnu" : "musl"}`;
  }
  if (platform === "win32") return `win32-${arch}-gnu`;
  return `${platform}-${arch}`;
}

/** The file name native/binding.cjs loads a source build from: on Windows its -msvc name,
 * the one it looks for under the official Node (whatever toolchain cargo used). */
function sourceBuildName() {
  return process.platform === "win32" ? `win32-${process.arch}-msvc` : platformName();
}

/**
 * Builds the addon with cargo (`-p dcl-node`) and copies it to
 * native/dcl-node.<platform>.node, where native/binding.cjs looks first. Returns an exit
 * status; says why on stderr when it is not 0.
 */
// `workspace`: build the whole workspace (a no-op after CI's `cargo build --workspace`)
// rather than `-p dcl-node`, whose narrower feature set would compile the dcl crates again.
export function buildAddon({ manifestPath, targetDir, release, workspace = false, cargo = process.env.CARGO || "cargo" }) {
  const select = workspace ? ["--workspace"] : ["--lib", "-p", "dcl-node"];
  const args = ["build", ...select, "--manifest-path", manifestPath, "--target-dir", targetDir];
  if (release) args.push("--release");
  const run = spawnSync(cargo, args, { stdio: "inherit" });
  if (run.error || run.status !== 0) {
    console.error(`@dcl/agent: ${cargo} ${args.join(" ")} failed`);
    return run.status || 1;
  }
  const lib = { linux: "libdcl_node.so", darwin: "libdcl_node.dylib", win32: "dcl_node.dll" }[process.platform];
  const built = join(targetDir, release ? "release" : "debug", lib ?? "libdcl_node.so");
  if (!existsSync(built)) {
    console.error(`@dcl/agent: cargo succeeded but ${built} is missing`);
    return 1;
  }
  mkdirSync(nativeDir, { recursive: true });
  copyFileSync(built, join(nativeDir, `dcl-node.${sourceBuildName()}.node`));
  return 0;
}

function installHook() {
  if (!existsSync(join(rust, "Cargo.toml"))) {
    console.log("@dcl/agent: repository checkout, run `npm run build` to build the addon");
    process.exit(0);
  }
  const platform = platformName();
  const force = process.env.DCL_NODE_BUILD_FROM_SOURCE === "1";
  if (!force) {
    if (existsSync(nativeDir) && readdirSync(nativeDir).some((f) => f.endsWith(".node"))) process.exit(0);
    try {
      createRequire(join(pkg, "package.json")).resolve(`@dcl/agent-${platform}`);
      process.exit(0); // the prebuilt addon is installed
    } catch {
      // no prebuilt package for this machine: build below
    }
  }

  const cargo = process.env.CARGO || "cargo";
  const probe = spawnSync(cargo, ["--version"], { encoding: "utf8" });
  if (probe.error || probe.status !== 0) {
    console.error(
      `@dcl/agent: ${force ? "DCL_NODE_BUILD_FROM_SOURCE=1 asks for a source build" : `no prebuilt addon for ${platform} (the optional dependency @dcl/agent-${platform} is not installed)`}, ` +
        `and building it needs a Rust toolchain: '${cargo}' was not found (install it from https://rustup.rs).`,
    );
    process.exit(1);
  }
  const release = process.env.DCL_NODE_DEBUG_BUILD !== "1";
  const targetDir = process.env.CARGO_TARGET_DIR || join(rust, "target");
  console.log(`@dcl/agent: building the native addon for ${platform} from source (${probe.stdout.trim()}, ${release ? "release" : "debug"})...`);
  const status = buildAddon({ manifestPath: join(rust, "Cargo.toml"), targetDir, release, cargo });
  if (status === 0) console.log(`@dcl/agent: built native/dcl-node.${sourceBuildName()}.node`);
  process.exit(status);
}

// Real paths on both sides: the module's own URL is resolved through symlinks (a linked
// node_modules), argv[1] is not.
if (process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))) installHook();
