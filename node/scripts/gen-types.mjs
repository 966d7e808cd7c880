// Generates src/generated/protocol.ts (types only) from the protocol's JSON Schema
// (core/protocol/schema/dcl-protocol.schema.json) and src/generated/options.ts from the
// session options' (core/bridge/schema/session-options.schema.json). `--check` fails when
// a committed file is not what the schemas give now. DCL_OPTIONS_SCHEMA and DCL_TYPES_OUT
// name other inputs / an output directory (the generated-types test uses a scratch copy).
import { readFile, writeFile, mkdir } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { compile } from "json-schema-to-typescript";

const here = dirname(fileURLToPath(import.meta.url));
const pkg = join(here, "..");
const schemaPath = join(pkg, "..", "core", "protocol", "schema", "dcl-protocol.schema.json");
const outDir = process.env.DCL_TYPES_OUT ?? join(pkg, "src", "generated");
const outPath = join(outDir, "protocol.ts");
const optionsSchemaPath =
  process.env.DCL_OPTIONS_SCHEMA ??
  join(pkg, "..", "core", "bridge", "schema", "session-options.schema.json");
const optionsOutPath = join(outDir, "options.ts");

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

const optionsSchema = JSON.parse(await readFile(optionsSchemaPath, "utf8"));
const optionsText = await compile(
  { ...optionsSchema, title: "SessionOptionsJson" },
  "SessionOptionsJson",
  {
    bannerComment: [
      "/* eslint-disable */",
      "/**",
      " * The options JSON dcl sessions open with, generated from",
      " * core/bridge/schema/session-options.schema.json by scripts/gen-types.mjs.",
      " * Do not edit: run `npm run gen:types`.",
      " */",
    ].join("\n"),
    additionalProperties: false,
    strictIndexSignatures: false,
    format: true,
    style: { singleQuote: false, semi: true, printWidth: 100 },
  },
);
const keysText =
  optionsText +
  "\n/** Every key of the options JSON, as the engine reads it. */\n" +
  "export const SESSION_OPTION_KEYS: readonly (keyof SessionOptionsJson)[] = " +
  JSON.stringify(Object.keys(optionsSchema.properties ?? {}), null, 2) +
  ";\n";

const outputs = [
  [outPath, text],
  [optionsOutPath, keysText],
];
if (process.argv.includes("--check")) {
  let stale = false;
  for (const [path, want] of outputs) {
    let current = "";
    try {
      current = await readFile(path, "utf8");
    } catch {
      // missing counts as stale
    }
    if (current !== want) {
      console.error(`${path} is stale: run \`npm run gen:types\` in node/ and commit the result`);
      stale = true;
    }
  }
  if (stale) process.exit(1);
  console.log("generated types are current");
} else {
  await mkdir(outDir, { recursive: true });
  for (const [path, want] of outputs) {
    await writeFile(path, want);
    console.log(`wrote ${path}`);
  }
}
