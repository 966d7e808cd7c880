// Generates src/generated/protocol.ts (types only) from the protocol's JSON Schema
// (core/protocol/schema/dcl-protocol.schema.json). `--check` fails when the committed
// file is not what the schema gives now.
import { readFile, writeFile, mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { compile } from "json-schema-to-typescript";

const here = dirname(fileURLToPath(import.meta.url));
const pkg = join(here, "..");
const schemaPath = join(pkg, "..", "core", "protocol", "schema", "dcl-protocol.schema.json");
const outPath = join(pkg, "src", "generated", "protocol.ts");

const schema = JSON.parse(await readFile(schemaPath, "utf8"));
// schemars writes each `Message` variant as a `$ref` with the `type` tag beside it;
// json-schema-to-typescript drops a `$ref` that has siblings, so the two become an allOf.
const message = {
  title: "Message",
  description: schema.description,
  oneOf: schema.oneOf.map((variant) => {
    if (!variant.$ref) return variant;
    const { $ref, ...tag } = variant;
    return { allOf: [{ $ref }, tag] };
  }),
};
// `unreachableDefinitions` emits `$defs` only beside an object schema, so the root is an
// empty object holding `Message` and every definition (the control requests and responses
// are reached from no `Message` variant).
const root = {
  title: "DclProtocol",
  description: "Every type of the dcl protocol; see `Message` for one line of stream-json.",
  type: "object",
  properties: {},
  additionalProperties: false,
  $defs: { Message: message, ...schema.$defs },
};

const banner = [
  "/* eslint-disable */",
  "/**",
  " * The dcl protocol's messages, generated from core/protocol/schema/dcl-protocol.schema.json",
  " * by scripts/gen-types.mjs (json-schema-to-typescript). Do not edit: run `npm run gen:types`.",
  " */",
].join("\n");
const text = await compile(root, "DclProtocol", {
  bannerComment: banner,
  additionalProperties: true,
  unreachableDefinitions: true,
  strictIndexSignatures: false,
  format: true,
  style: { singleQuote: false, semi: true, printWidth: 100 },
});

if (process.argv.includes("--check")) {
  let current = "";
  try {
    current = await readFile(outPath, "utf8");
  } catch {
    // missing counts as stale
  }
  if (current !== text) {
    console.error(`${outPath} is stale: run \`npm run gen:types\` in node/ and commit the result`);
    process.exit(1);
  }
  console.log("protocol types are current");
} else {
  await mkdir(dirname(outPath), { recursive: true });
  await writeFile(outPath, text);
  console.log(`wrote ${outPath}`);
}
