package nexus.io.agent.dcl

import kotlinx.serialization.json.JsonObject

/** The answer of a [CanUseTool] callback. */
sealed class PermissionResult {
    /** Run the tool, with [updatedInput] instead of the input asked for when given. */
    data class Allow(val updatedInput: JsonObject? = null) : PermissionResult()

    /** Refuse the call; the model reads [message]. */
    data class Deny(val message: String) : PermissionResult()
}

/**
 * Decides a tool call dcl's rules left to the host. The coroutine is cancelled when dcl
 * withdraws the request (its host timeout) or the session closes.
 */
typealias CanUseTool = suspend (toolName: String, input: JsonObject) -> PermissionResult

/**
 * Runs for a hook event; returns the SDKs' hook output (`{"decision": "block", "reason": …}`,
 * `{"hookSpecificOutput": …}`, or an empty object).
 */
typealias HookCallback = suspend (input: JsonObject) -> JsonObject

/** Callbacks for one hook event where [matcher] applies (a tool name or pattern; null: all). */
data class HookMatcher(
    val matcher: String? = null,
    val hooks: List<HookCallback>,
    val timeoutSecs: Double? = null,
)

/** What an in-process MCP tool returns: text, or an error the model reads. */
data class ToolResult(val text: String, val isError: Boolean = false)

/** One in-process MCP tool; dcl checks the arguments against [inputSchema] before [handler] runs. */
class McpTool(
    val name: String,
    val description: String,
    val inputSchema: JsonObject,
    val handler: suspend (arguments: JsonObject) -> ToolResult,
)

/** An in-process MCP server: its JSON-RPC is answered by dcl, only the tool functions run here. */
class McpServer(val name: String, val tools: List<McpTool>, val version: String = "1.0.0")
