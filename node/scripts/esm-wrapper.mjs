// Writes the ESM entry point (dist/esm/index.mjs + .d.mts) over the CommonJS build, so
// `import` and `require` share one copy of the package (one set of error classes, one
// addon), the "ESM wrapper" layout Node's documentation describes for dual packages.
import { mkdir, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const pkg = join(dirname(fileURLToPath(import.meta.url)), "..");
const cjs = createRequire(import.meta.url)(join(pkg, "dist", "cjs", "index.js"));
const names = Object.keys(cjs).filter((n) => n !== "__esModule" && n !== "default").sort();
const esm = join(pkg, "dist", "esm");
await mkdir(esm, { recursive: true });
await writeFile(
  join(esm, "index.mjs"),
  `import cjs from "../cjs/index.js";\n\nexport const {\n${names.map((n) => `  ${n},`).join("\n")}\n} = cjs;\nexport default cjs;\n`,
);
await writeFile(join(esm, "index.d.mts"), `export * from "../cjs/index.js";\n`);
console.log(`dist/esm: ${names.length} exports`);
