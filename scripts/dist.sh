#!/usr/bin/env bash
# Builds every installable artifact of dcl into dist/ from one release build:
#
#   dist/dcl                                     static Linux x86-64 executable (glibc, static-pie, RELR)
#   dist/dcl-<v>-cp39-abi3-manylinux_*.whl        Python: the extension (dcl._native) + dcl/_bin/dcl
#                                                 as the `dcl` console script
#   dist/dcl-<v>.tar.gz                           Python sdist (builds the extension from source)
#   dist/dcl-agent-<v>.tgz                        npm @dcl/agent: JS (ESM + CJS), types, the addon
#                                                 loader, Rust sources for the build-from-source fallback
#   dist/dcl-agent-linux-x64-gnu-<v>.tgz          npm @dcl/agent-linux-x64-gnu: prebuilt addon + bin/dcl
#   dist/agent-cli-sdk-<v>.jar (+ .pom)           Maven nexus.io.agent:agent-cli-sdk: classes (Java 8),
#                                                 native/linux-x86_64/{libdcl_java.so,dcl} + .sha256
#   dist/SHA256SUMS
#
# The version of each is the workspace version (root Cargo.toml, [workspace.package]); the
# script stamps it into the npm packages, and checks that `dcl -v`, the wheel, the npm
# packages and the jar all carry it. Every crate is compiled once (release profile): the
# static dcl is `cargo rustc ... -C target-feature=+crt-static` on the final crate only, and
# then maturin, napi and the Java build link their cdylibs side by side against the same
# dependency artifacts, Python's and Node's in target dirs hard-linked from this one (step 4;
# the timings and `Compiling` lines printed at the end show it).
#
# Needs: cargo, python3 (maturin is installed into tests/.work/distenv), node + npm, mvn, a JDK,
# file, unzip.
# Env: CARGO_TARGET_DIR (default target/), DIST_DIR (default dist/), MATURIN (a maturin to use).
#
# Other targets (issue 37):
#   bash scripts/dist.sh --target <triple>       one target; any but x86_64-unknown-linux-gnu is
#                                                cross-built into dist/<triple>/ by
#                                                scripts/dist-cross.sh (its header lists what)
#   bash scripts/dist.sh --target <t> --only dcl  just the executable, into dist/<triple>/ (or a
#                                                comma list of dcl,wheel,npm,jni,c,go)
#   bash scripts/dist.sh --all [--only dcl]       every target in ALL_TARGETS; the jar then carries
#                                                every platform's native/<os>-<arch>/ (scripts/jar_all.py)
#   --profile <p>                                 the cargo profile of cross-built executables
#                                                 (default release; `small` for smoke tests)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
ALL_TARGETS=(x86_64-unknown-linux-gnu aarch64-unknown-linux-gnu x86_64-unknown-linux-musl
  aarch64-unknown-linux-musl x86_64-apple-darwin aarch64-apple-darwin x86_64-pc-windows-gnu)
ARG_TARGETS=() ONLY="" CROSS_PROFILE=release
while [[ $# -gt 0 ]]; do
  case "$1" in
  --target) ARG_TARGETS+=("${2:?--target needs a triple}"); shift 2 ;;
  --all) ARG_TARGETS=("${ALL_TARGETS[@]}"); shift ;;
  --only) ONLY="${2:?--only needs an artifact name}"; shift 2 ;;
  --profile) CROSS_PROFILE="${2:?--profile needs a name}"; shift 2 ;;
  *) printf '[dist] error: unknown argument %s\n' "$1" >&2; exit 2 ;;
  esac
done
if [[ -n "$ONLY" || ${#ARG_TARGETS[@]} -gt 1 || (${#ARG_TARGETS[@]} -eq 1 && "${ARG_TARGETS[0]}" != x86_64-unknown-linux-gnu) ]]; then
  [[ ${#ARG_TARGETS[@]} -gt 0 ]] || ARG_TARGETS=(x86_64-unknown-linux-gnu)
  t0=$SECONDS
  # This machine's own build first (it starts from an empty dist/): the sdist, @dcl/agent, the
  # jar's classes, and the install test's artifacts.
  if [[ -z "$ONLY" && " ${ARG_TARGETS[*]} " == *" x86_64-unknown-linux-gnu "* ]]; then
    bash "$0"
  fi
  # Then every target cross-built into dist/<triple>/ — this machine's own too: zig links it
  # against glibc 2.28 (manylinux_2_28), where the quick build above needs this machine's.
  for t in "${ARG_TARGETS[@]}"; do
    s0=$SECONDS
    bash "$ROOT/scripts/dist-cross.sh" "$t" --profile "$CROSS_PROFILE" ${ONLY:+--only "$ONLY"}
    printf '[dist] %s: %ds\n' "$t" "$((SECONDS - s0))"
  done
  # One jar for every platform: the host build's jar gains each cross-built native/<os>-<arch>/.
  if [[ -z "$ONLY" ]]; then
    python3 "$ROOT/scripts/jar_all.py" "${DIST_DIR:-$ROOT/dist}"
  fi
  printf '[dist] all targets: %ds\n' "$((SECONDS - t0))"
  exit 0
fi
DIST="${DIST_DIR:-$ROOT/dist}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
MATURIN_VERSION=1.16.0
TRIPLE=x86_64-unknown-linux-gnu
# Every build names --target explicitly, because @napi-rs/cli always does: so cargo, maturin
# and napi all use (and reuse) target/x86_64-unknown-linux-gnu/release.
REL="$CARGO_TARGET_DIR/$TRIPLE/release"
NPM_PLATFORM=linux-x64-gnu
JAVA_PLATFORM=linux-x86_64

log() { printf '[dist] %s\n' "$*"; }
die() {
  printf '[dist] error: %s\n' "$*" >&2
  exit 1
}
TIMES=()
step() { # step <name> <command...>: runs and records the wall time
  local name="$1" t0=$SECONDS
  shift
  log "== $name"
  "$@"
  TIMES+=("$(printf '%-28s %4ds' "$name" "$((SECONDS - t0))")")
}

[[ "$(uname -s)-$(uname -m)" == Linux-x86_64 ]] || die "this script builds the Linux x86-64 artifacts; this machine is $(uname -s)-$(uname -m)"
for tool in cargo python3 node npm mvn java file unzip ldd; do
  command -v "$tool" >/dev/null || die "$tool is not on PATH"
done

VERSION="$(cargo metadata --no-deps --format-version 1 --offline |
  python3 -c 'import json,sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "dcl-cli"))')"
[[ "$VERSION" =~ ^[0-9]+\.[0-9]+\.[0-9]+ ]] || die "no workspace version found (got '$VERSION')"
POM_VERSION="$(awk -F'[<>]' '/^  <version>/ {print $3; exit}' java/pom.xml)"
[[ "$POM_VERSION" == "$VERSION" ]] ||
  die "java/pom.xml <version> is '$POM_VERSION' but the workspace version is '$VERSION': set it to $VERSION"
log "version $VERSION (workspace), target dir $CARGO_TARGET_DIR"

rm -rf "$DIST"
mkdir -p "$DIST"
STAGE="$(mktemp -d "${TMPDIR:-/tmp}/dcl-dist.XXXXXX")"
cleanup() {
  rm -rf "$STAGE" "$ROOT/python/src/dcl/_bin"
  (cd "$ROOT/node" && node scripts/prepack.mjs --clean) >/dev/null 2>&1 || true
}
trap cleanup EXIT

# --- 1. The Rust build: the dependencies and the static dcl ---------------------------
static_dcl() {
  # Only the final crate gets +crt-static (rustc links it as a static PIE against glibc's
  # libc.a); the dependencies are the ordinary release artifacts the bindings reuse.
  # -z pack-relative-relocs stores the relative relocations a static PIE applies to itself at
  # start as a RELR bitmap instead of 24-byte RELA entries: 0.95 MB smaller and quicker to
  # start, ASLR kept (BENCHMARKS.md, "RELR relocations"). The reader is the libc.a linked in,
  # so it needs glibc >= 2.36 on the build machine only; the `-v` run below would crash if the
  # libc.a ignored DT_RELR. Not for the cdylibs: there the system's ld.so reads RELR, so they
  # would need glibc >= 2.36 at run time (the wheel is manylinux_2_34).
  cargo rustc --release --locked --target "$TRIPLE" -p dcl-cli --bin dcl -- \
    -C target-feature=+crt-static -C link-arg=-Wl,-z,pack-relative-relocs
  local out
  out="$(file -L "$REL/dcl")"
  [[ "$out" == *"static-pie linked"* || "$out" == *"statically linked"* ]] || die "dcl is not static: $out"
  local deps
  deps="$(ldd "$REL/dcl" 2>&1 || true)"
  [[ "$deps" == *"statically linked"* || "$deps" == *"not a dynamic executable"* ]] ||
    die "ldd lists shared libraries for dcl: $deps"
  "$REL/dcl" -v >/dev/null || die "the static dcl does not start (a libc.a without DT_RELR support?)"
  install -m 0755 "$REL/dcl" "$DIST/dcl"
}
step "cargo: static dcl" static_dcl
# --crate-type cdylib: bindings/java is also an rlib (for its unit tests), and an rlib output
# makes cargo compile every dependency again as object code + bitcode instead of reusing the
# bitcode-only artifacts the LTO'd dcl, wheel and addon share (a second full build).
java_lib() {
  cargo rustc --release --locked --target "$TRIPLE" -p dcl-java --lib --crate-type cdylib
}

# --- 2. Python: wheel (maturin, reusing the artifacts above) and sdist (run in step 4) ---
maturin_bin() {
  if [[ -n "${MATURIN:-}" ]]; then
    echo "$MATURIN"
    return
  fi
  local venv="$ROOT/tests/.work/distenv"
  if [[ ! -x "$venv/bin/maturin" ]] || [[ "$("$venv/bin/maturin" --version)" != "maturin $MATURIN_VERSION" ]]; then
    rm -rf "$venv"
    python3 -m venv "$venv" >&2
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "maturin==$MATURIN_VERSION" >&2
  fi
  echo "$venv/bin/maturin"
}
python_wheel() {
  local maturin
  maturin="$(maturin_bin)"
  mkdir -p python/src/dcl/_bin
  install -m 0755 "$DIST/dcl" python/src/dcl/_bin/dcl
  # manylinux: maturin checks the extension's symbol versions and tags the oldest policy
  # they satisfy; --compatibility makes a newer requirement an error instead of a silent tag.
  (cd python && "$maturin" build --release --locked --target "$TRIPLE" --compatibility "${DCL_MANYLINUX:-manylinux_2_34}" --out "$DIST")
  rm -rf python/src/dcl/_bin
  (cd python && "$maturin" sdist --out "$DIST")
}

# --- 3. Node: @dcl/agent and @dcl/agent-linux-x64-gnu (run in step 4) ---
node_packages() {
  if [[ ! -d node/node_modules/@napi-rs/cli || node/package-lock.json -nt node/node_modules/.package-lock.json ]]; then
    (cd node && npm ci --omit=optional --ignore-scripts --no-audit --no-fund --loglevel=error)
  fi
  (cd node && node scripts/build-native.mjs --release --target "$TRIPLE")
  local addon="node/native/dcl-node.$NPM_PLATFORM.node"
  [[ -f "$addon" ]] || die "napi build wrote no $addon"
  # The loader and its types are committed (node/ci.sh builds the debug addon with plain
  # cargo and uses them): the ones napi just generated must be the same.
  if git -C "$ROOT" rev-parse --git-dir >/dev/null 2>&1 &&
    ! git -C "$ROOT" diff --exit-code --stat -- node/native/binding.cjs node/native/binding.d.ts; then
    die "node/native/binding.cjs or binding.d.ts is stale: commit what npm run build:native generated"
  fi
  (cd node && node scripts/prepack.mjs) # tsc (CJS + ESM wrapper) and rust/ from cargo metadata

  # @dcl/agent, staged: the workspace version, the platform package as an optional
  # dependency, no build-time dependencies (@napi-rs/cli: the fallback runs cargo itself).
  local agent="$STAGE/agent" plat="$STAGE/$NPM_PLATFORM"
  mkdir -p "$agent/native" "$agent/scripts"
  cp -r node/dist node/rust node/README.md "$agent/"
  cp node/native/binding.cjs node/native/binding.d.ts "$agent/native/"
  cp node/scripts/install.mjs "$agent/scripts/"
  VERSION="$VERSION" PLATFORMS="$(python3 -c 'import sys; sys.path.insert(0, "scripts"); import npm_platform; print(" ".join(npm_platform.PLATFORMS))')" node -e '
    const fs = require("fs");
    const p = JSON.parse(fs.readFileSync("node/package.json", "utf8"));
    const v = process.env.VERSION;
    p.version = v;
    delete p.devDependencies;
    delete p.dependencies["@napi-rs/cli"];
    // Every platform package (scripts/npm_platform.py): npm installs the one matching the machine.
    p.optionalDependencies = Object.fromEntries(process.env.PLATFORMS.split(" ").map((x) => [`@dcl/agent-${x}`, v]));
    p.scripts = { install: "node scripts/install.mjs" };
    p.files = ["dist/", "native/binding.cjs", "native/binding.d.ts", "scripts/install.mjs", "rust/", "README.md"];
    fs.writeFileSync(process.argv[1], JSON.stringify(p, null, 2) + "\n");
  ' "$agent/package.json"

  mkdir -p "$plat/bin"
  install -m 0755 "$addon" "$plat/dcl-node.$NPM_PLATFORM.node"
  install -m 0755 "$DIST/dcl" "$plat/bin/dcl"
  python3 scripts/npm_platform.py "$NPM_PLATFORM" "$VERSION" "$plat"

  (cd "$agent" && npm pack --ignore-scripts --silent --pack-destination "$DIST" >/dev/null)
  (cd "$plat" && npm pack --ignore-scripts --silent --pack-destination "$DIST" >/dev/null)
  (cd node && node scripts/prepack.mjs --clean)
}

# --- 4. The three bindings at once ------------------------------------------------------------
# Each binding's library is one fat-LTO link: a single-threaded LLVM job of minutes. cargo holds
# its target dir's lock for a whole build, so three builds in one dir run one after another
# (15 min of the install phase on CI's two cores). Python and Node build in their own target
# dirs instead, made before anything builds, from the release dirs: the shared dependencies
# come along compiled and fresh (cargo's fingerprints do not depend on where the target dir
# is), so the three links run side by side.
# The compiled artifacts (.rlib, .rmeta, .so, .a, .o: 800 MB, minutes to copy on CI's disk)
# are hard links — rustc and the linker write those to a new file and rename it, never into
# the old one — and everything else (fingerprints, dep-info, build-script output, which cargo
# rewrites in place) is copied; cargo's lock files are left behind, so each dir has its own.
link_target_dir() { # link_target_dir <dest>
  python3 - "$CARGO_TARGET_DIR" "$1" release "$TRIPLE" <<'EOF_PY'
import os, shutil, sys
src, dst, *subdirs = sys.argv[1:]
big = (".rlib", ".rmeta", ".so", ".a", ".o")
for sub in subdirs:
    for root, dirs, files in os.walk(os.path.join(src, sub)):
        out = os.path.join(dst, os.path.relpath(root, src))
        os.makedirs(out, exist_ok=True)
        for name in files:
            if name == ".cargo-lock":
                continue
            s, d = os.path.join(root, name), os.path.join(out, name)
            if name.endswith(big) and not os.path.islink(s):
                os.link(s, d)
            else:
                shutil.copy2(s, d, follow_symlinks=False)
EOF_PY
}
side_by_side() {
  local job dir pids=() jobs=(java python node) rc=0 i t0=$SECONDS
  maturin_bin >/dev/null # the venv, before anything runs in parallel
  for job in python node; do
    rm -rf "$CARGO_TARGET_DIR/dist-$job"
    link_target_dir "$CARGO_TARGET_DIR/dist-$job"
  done
  log "target dirs for python and node made in $((SECONDS - t0))s"
  for job in "${jobs[@]}"; do
    dir="$CARGO_TARGET_DIR"
    [[ "$job" == java ]] || dir="$CARGO_TARGET_DIR/dist-$job"
    log "== $job (log: $STAGE/$job.log, target dir $dir)"
    (
      export CARGO_TARGET_DIR="$dir"
      s0=$SECONDS
      case "$job" in
        java) java_lib ;;
        python) python_wheel ;;
        node) node_packages ;;
      esac
      echo "$((SECONDS - s0))" >"$STAGE/$job.secs"
    ) >"$STAGE/$job.log" 2>&1 &
    pids+=($!)
  done
  for i in "${!jobs[@]}"; do
    if ! wait "${pids[$i]}"; then
      rc=1
      log "${jobs[$i]} FAILED; the end of its log:"
      tail -n 60 "$STAGE/${jobs[$i]}.log" | sed "s/^/[dist:${jobs[$i]}] /"
    else
      TIMES+=("$(printf '%-28s %4ds' "  ${jobs[$i]} (side by side)" "$(cat "$STAGE/${jobs[$i]}.secs")")")
      grep -E '^ *Compiling ' "$STAGE/${jobs[$i]}.log" | sed "s/^ */[dist:${jobs[$i]}] /" || true
    fi
  done
  rm -rf "$CARGO_TARGET_DIR/dist-python" "$CARGO_TARGET_DIR/dist-node"
  log "the three bindings took $((SECONDS - t0))s side by side"
  [[ $rc == 0 ]] || die "a binding's build failed (above)"
}
step "bindings: java, python, node" side_by_side

# --- 5. Java: the jar with libdcl_java.so and dcl ------------------------------------------
java_jar() {
  # The libraries were built above (-Dskip.cargo); the pom copies them and writes .sha256.
  mvn -B -ntp -q -f java/pom.xml -Dskip.cargo "-Dcargo.out=$TRIPLE/release" -Dmaven.test.skip=true -Dmaven.javadoc.skip=true package
  cp "java/target/agent-cli-sdk-$VERSION.jar" "$DIST/"
  cp java/pom.xml "$DIST/agent-cli-sdk-$VERSION.pom"
}
step "java: jar" java_jar

# --- 6. Checks: contents and one version everywhere ----------------------------------------
check() {
  local v="$VERSION" f
  f="$("$DIST/dcl" -v 2>&1)"
  [[ "$f" == *"(dcl $v)"* ]] || die "dcl -v says '$f', not (dcl $v)"
  local wheel sdist
  local wheels=("$DIST"/dcl-"$v"-*abi3*manylinux*x86_64.whl)
  wheel="${wheels[0]}"
  [[ -f "$wheel" ]] || die "no abi3 manylinux wheel for $v in $DIST: $(ls "$DIST")"
  sdist="$DIST/dcl-$v.tar.gz"
  [[ -f "$sdist" ]] || die "no sdist $sdist"
  python3 - "$wheel" "$sdist" "$DIST/dcl" "$v" <<'EOF'
import hashlib, sys, tarfile, zipfile
wheel, sdist, dcl, v = sys.argv[1:]
z = zipfile.ZipFile(wheel)
names = set(z.namelist())
want = {"dcl/__init__.py", "dcl/cli.py", "dcl/_bin/dcl", "dcl/py.typed"}
missing = want - names
if missing or not any(n.startswith("dcl/_native") and n.endswith(".so") for n in names):
    sys.exit(f"wheel lacks {sorted(missing) or 'dcl/_native*.so'}")
info = z.getinfo("dcl/_bin/dcl")
if not (info.external_attr >> 16) & 0o111:
    sys.exit("wheel: dcl/_bin/dcl is not executable")
if hashlib.sha256(z.read("dcl/_bin/dcl")).digest() != hashlib.sha256(open(dcl, "rb").read()).digest():
    sys.exit("wheel: dcl/_bin/dcl differs from dist/dcl")
meta = z.read(f"dcl-{v}.dist-info/METADATA").decode()
if f"\nVersion: {v}\n" not in meta:
    sys.exit(f"wheel METADATA is not version {v}")
eps = z.read(f"dcl-{v}.dist-info/entry_points.txt").decode()
if "dcl = dcl.cli:main" not in eps.replace("dcl=dcl", "dcl = dcl"):
    sys.exit(f"wheel has no dcl console script: {eps!r}")
with tarfile.open(sdist) as t:
    sn = t.getnames()
if any("/_bin/" in n for n in sn) or not any(n.endswith("bindings/python/Cargo.toml") for n in sn):
    sys.exit("sdist: carries a binary, or lacks the Rust sources")
print(f"[dist] wheel and sdist: version {v}, extension + dcl executable + console script")
EOF
  # The sdist is a workspace cargo resolves on its own, offline, from its lock file.
  local sdx="$STAGE/sdist"
  mkdir -p "$sdx"
  tar -xzf "$sdist" -C "$sdx"
  # (not --locked: the lock lists the crates left out of this smaller workspace; cargo drops them)
  cargo metadata --offline --format-version 1 --manifest-path "$sdx/dcl-$v/Cargo.toml" >/dev/null ||
    die "the sdist's Rust workspace does not resolve with its Cargo.lock"
  local t
  for t in "dcl-agent-$v.tgz:@dcl/agent" "dcl-agent-$NPM_PLATFORM-$v.tgz:@dcl/agent-$NPM_PLATFORM"; do
    local file="$DIST/${t%%:*}" name="${t#*:}" got
    [[ -f "$file" ]] || die "missing $file"
    got="$(tar -xzOf "$file" package/package.json | node -e 'const p=JSON.parse(require("fs").readFileSync(0,"utf8")); console.log(p.name+"@"+p.version+" "+JSON.stringify(p.optionalDependencies||{}))')"
    [[ "$got" == "$name@$v "* ]] || die "$file is $got, not $name@$v"
  done
  # (Listings go to files first: `tar | grep -q` under pipefail fails when grep stops early.)
  local plat_list="$STAGE/plat.list" agent_list="$STAGE/agent.list"
  tar -tzf "$DIST/dcl-agent-$NPM_PLATFORM-$v.tgz" >"$plat_list"
  tar -tzf "$DIST/dcl-agent-$v.tgz" >"$agent_list"
  grep -qx "package/bin/dcl" "$plat_list" || die "platform package lacks bin/dcl"
  grep -qx "package/dcl-node.$NPM_PLATFORM.node" "$plat_list" || die "platform package lacks the addon"
  grep -qx "package/rust/bindings/node/Cargo.toml" "$agent_list" || die "@dcl/agent lacks the Rust sources"
  if grep -q '\.node$' "$agent_list"; then die "@dcl/agent carries an addon (it belongs in the platform package)"; fi
  local jar="$DIST/agent-cli-sdk-$v.jar" e
  for e in libdcl_java.so libdcl_java.so.sha256 dcl dcl.sha256; do
    unzip -l "$jar" "native/$JAVA_PLATFORM/$e" >/dev/null || die "jar lacks native/$JAVA_PLATFORM/$e"
  done
  got="$(unzip -p "$jar" META-INF/maven/nexus.io.agent/agent-cli-sdk/pom.properties | sed -n 's/^version=//p')"
  [[ "$got" == "$v" ]] || die "jar pom.properties version is '$got', not $v"
  [[ "$(unzip -p "$jar" "native/$JAVA_PLATFORM/dcl" | sha256sum | cut -d' ' -f1)" == "$(sha256sum <"$DIST/dcl" | cut -d' ' -f1)" ]] ||
    die "the jar's dcl differs from dist/dcl"
  # Class file major version 52 = Java 8.
  local cls major
  unzip -Z1 "$jar" >"$STAGE/jar.list"
  cls="$(grep -m 1 '\.class$' "$STAGE/jar.list")"
  unzip -p "$jar" "$cls" >"$STAGE/first.class"
  major="$(od -An -j6 -N2 -tu1 "$STAGE/first.class" | awk '{print $1*256+$2}')"
  [[ "$major" == 52 ]] || die "$cls is class file version $major, not 52 (Java 8)"
  log "versions agree: dcl -v '$f', wheel, npm packages, jar = $v"
}
step "checks" check

(cd "$DIST" && sha256sum -- * >SHA256SUMS)
echo
log "artifacts in $DIST:"
(cd "$DIST" && ls -l --block-size=K -- * | awk '{printf "[dist]   %8s  %s\n", $5, $9}')
log "timings:"
for t in "${TIMES[@]}"; do log "  $t"; done
