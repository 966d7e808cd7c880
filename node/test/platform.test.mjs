// The loader asks for the prebuilt package the release builds: for each machine Node runs on,
// platformName() must name one of the packages scripts/npm_platform.py writes (and so one
// scripts/dist.sh lists as an optional dependency of @dcl/agent).
import assert from "node:assert/strict";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { test } from "node:test";
import { HERE } from "./helpers.mjs";

const require = createRequire(import.meta.url);
const { platformName } = require("../dist/cjs/native.js");
const packaged = [
  ...fs
    .readFileSync(path.join(HERE, "..", "..", "scripts", "npm_platform.py"), "utf8")
    .matchAll(/^ {4}"([a-z0-9-]+)": \(/gm),
].map((m) => m[1]);

test("every machine dcl ships for maps to a packaged platform", () => {
  const machines = [
    ["linux", "x64", true, "linux-x64-gnu"],
    ["linux", "arm64", true, "linux-arm64-gnu"],
    ["linux", "x64", false, "linux-x64-musl"],
    ["linux", "arm64", false, "linux-arm64-musl"],
    ["darwin", "x64", false, "darwin-x64"],
    ["darwin", "arm64", false, "darwin-arm64"],
    // The official Node is MSVC-built; dcl's Windows addon is a mingw build any Node loads.
    ["win32", "x64", false, "win32-x64-gnu"],
  ];
  assert.equal(packaged.length, machines.length, `npm_platform.py lists ${packaged}`);
  for (const [platform, arch, glibc, want] of machines) {
    assert.equal(platformName(platform, arch, glibc), want);
    assert.ok(packaged.includes(want), `${want} is not a package npm_platform.py writes`);
  }
});

test("a machine dcl does not ship for names no packaged platform", () => {
  assert.ok(!packaged.includes(platformName("freebsd", "x64", false)));
  assert.ok(!packaged.includes(platformName("win32", "arm64", false)));
});
