/**
 * In-process MCP tools: `tool()` and `createSdkMcpServer()` with zod schemas, as
 * @anthropic-ai/claude-agent-sdk has them. The model sees tool `add` of server `calc` as
 * `mcp__calc__add`. dcl's Rust host answers the server's JSON-RPC (initialize, ping,
 * tools/list, schema checks) from `spec()`; only `tools/call` runs a handler here, so no
 * MCP SDK is needed.
 */
import { z } from "zod";

import { native, type NativeMcpServer } from "./native";

export type ZodRawShape = Record<string, z.ZodType>;

export interface CallToolResult {
  content: Array<Record<string, unknown>>;
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  [k: string]: unknown;
}

export interface SdkMcpToolDefinition<Shape extends ZodRawShape = ZodRawShape> {
  name: string;
  description: string;
  inputSchema: Shape;
  annotations?: Record<string, unknown>;
  handler: (args: z.infer<z.ZodObject<Shape>>, extra: unknown) => Promise<CallToolResult> | CallToolResult;
}

/** A tool served in-process; `inputSchema` is a zod raw shape (`{a: z.number()}`). */
export function tool<Shape extends ZodRawShape>(
  name: string,
  description: string,
  inputSchema: Shape,
  handler: (args: z.infer<z.ZodObject<Shape>>, extra: unknown) => Promise<CallToolResult> | CallToolResult,
  extras?: { annotations?: Record<string, unknown> },
): SdkMcpToolDefinition<Shape> {
  return { name, description, inputSchema, handler, annotations: extras?.annotations };
}

type JsonRpc = { jsonrpc?: string; id?: string | number | null; method?: string; params?: Record<string, unknown> };

function objectSchema(shape: ZodRawShape): z.ZodObject<ZodRawShape> {
  return shape instanceof z.ZodObject ? (shape as z.ZodObject<ZodRawShape>) : z.object(shape);
}

/** An MCP server living in this process, answering JSON-RPC from dcl. */
export class SdkMcpServer {
  readonly name: string;
  readonly version: string;
  readonly instructions: string | undefined;
  #rpc: NativeMcpServer | undefined;
  readonly #tools = new Map<string, { def: SdkMcpToolDefinition; schema: z.ZodObject<ZodRawShape>; json: Record<string, unknown> }>();

  constructor(name: string, version = "1.0.0", tools: SdkMcpToolDefinition<any>[] = [], instructions?: string) {
    this.name = name;
    this.version = version;
    this.instructions = instructions;
    for (const def of tools) {
      const schema = objectSchema(def.inputSchema);
      // What @anthropic-ai/claude-agent-sdk lists for the same shape ($schema included).
      const json = z.toJSONSchema(schema, { target: "draft-7", io: "input" }) as Record<string, unknown>;
      this.#tools.set(def.name, { def, schema, json });
    }
  }

  /** The declaration dcl's Rust host serves (initialize, tools/list and schema checks are
   * answered there; only calls reach `callTool`). */
  spec(): Record<string, unknown> {
    return {
      name: this.name,
      version: this.version,
      tools: this.listTools(),
      ...(this.instructions ? { instructions: this.instructions } : {}),
    };
  }

  /** The `tools/list` entries. */
  listTools(): Array<Record<string, unknown>> {
    return [...this.#tools.values()].map(({ def, json }) => ({
      name: def.name,
      description: def.description,
      inputSchema: json,
      ...(def.annotations ? { annotations: def.annotations } : {}),
    }));
  }

  /** Runs one tool; every failure becomes an `isError` result the model reads. */
  async callTool(name: string, args: unknown): Promise<CallToolResult> {
    const error = (text: string): CallToolResult => ({ content: [{ type: "text", text }], isError: true });
    const entry = this.#tools.get(name);
    if (entry === undefined) return error(`Tool '${name}' not found`);
    const parsed = entry.schema.safeParse(args ?? {});
    if (!parsed.success) return error(`Input validation error: ${z.prettifyError(parsed.error)}`);
    try {
      const result = await entry.def.handler(parsed.data as never, {});
      if (result === null || typeof result !== "object" || !Array.isArray(result.content)) {
        return error(`tool ${name} returned no {content: [...]}`);
      }
      return { ...result, isError: Boolean(result.isError) };
    } catch (e) {
      return error(e instanceof Error ? e.message || e.name : String(e));
    }
  }

  /** Answers one JSON-RPC message (`null` for a notification) the way a session's host
   * does: the JSON-RPC is dcl's (Rust), only the tool's function runs here. */
  async handle(message: JsonRpc): Promise<Record<string, unknown> | null> {
    this.#rpc ??= new (native().McpServer)(JSON.stringify(this.spec()));
    const step = this.#rpc.handle(JSON.stringify(message));
    if (step.reply != null) return JSON.parse(step.reply) as Record<string, unknown>;
    if (step.tool == null || step.id == null) return null;
    const result = await this.callTool(step.tool, JSON.parse(step.arguments ?? "{}"));
    return JSON.parse(native().McpServer.toolResult(step.id, JSON.stringify(result), null)) as Record<string, unknown>;
  }
}

export interface McpSdkServerConfigWithInstance {
  type: "sdk";
  name: string;
  instance: SdkMcpServer;
}

export type McpServerConfig =
  | { type?: "stdio"; command: string; args?: string[]; env?: Record<string, string> }
  | { type: "sse" | "http"; url: string; headers?: Record<string, string> }
  | McpSdkServerConfigWithInstance;

/** An in-process MCP server from `tool()` definitions; put it in `options.mcpServers`. */
export function createSdkMcpServer(options: {
  name: string;
  version?: string;
  tools?: SdkMcpToolDefinition<any>[];
  instructions?: string;
}): McpSdkServerConfigWithInstance {
  return {
    type: "sdk",
    name: options.name,
    instance: new SdkMcpServer(options.name, options.version, options.tools, options.instructions),
  };
}
