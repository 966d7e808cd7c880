package nexus.io.agent.dcl

import kotlinx.serialization.json.JsonElement
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.put
import kotlinx.serialization.json.putJsonArray
import kotlinx.serialization.json.putJsonObject

/**
 * Opens a session. The fields map to dcl's options JSON (camelCase keys, the schema is
 * `core/bridge/schema/session-options.schema.json`); [extra] sets any other key of it.
 */
data class DclOptions(
    val model: String? = null,
    val cwd: String? = null,
    val permissionMode: String? = null,
    val systemPrompt: String? = null,
    val maxTurns: Int? = null,
    val allowedTools: List<String> = emptyList(),
    val disallowedTools: List<String> = emptyList(),
    val env: Map<String, String>? = null,
    val persistSession: Boolean? = null,
    /** Where sessions are drained: `postgres://…`, `redis://…` or `file:/dir`. */
    val sessionStore: String? = null,
    /** Seconds dcl waits for a callback before withdrawing it (dcl's default: 300). */
    val hostTimeoutSecs: Double? = null,
    /** Decides the tool calls dcl's rules leave to the host. */
    val canUseTool: CanUseTool? = null,
    /** Hook callbacks by event name (`PreToolUse`, …). */
    val hooks: Map<String, List<HookMatcher>> = emptyMap(),
    /** In-process MCP servers: the model sees tool `t` of server `s` as `mcp__s__t`. */
    val mcpServers: List<McpServer> = emptyList(),
    /** Runs the session in this `dcl` executable as a child process (the subprocess transport). */
    val cliPath: String? = null,
    val extra: Map<String, JsonElement> = emptyMap(),
) {
    internal fun toJson(): JsonObject = buildJsonObject {
        put("outputFormat", "stream-json")
        put("legacyEvents", false)
        model?.let { put("model", it) }
        cwd?.let { put("cwd", it) }
        permissionMode?.let { put("permissionMode", it) }
        systemPrompt?.let { put("systemPrompt", it) }
        maxTurns?.let { put("maxTurns", it) }
        if (allowedTools.isNotEmpty()) putJsonArray("allowedTools") { allowedTools.forEach { add(JsonPrimitive(it)) } }
        if (disallowedTools.isNotEmpty()) putJsonArray("disallowedTools") { disallowedTools.forEach { add(JsonPrimitive(it)) } }
        env?.let { e -> putJsonObject("env") { e.forEach { (k, v) -> put(k, v) } } }
        persistSession?.let { put("persistSession", it) }
        sessionStore?.let { put("sessionStore", it) }
        hostTimeoutSecs?.let { put("hostTimeoutSecs", it) }
        if (canUseTool != null) put("permissionPromptTool", "stdio")
        extra.forEach { (k, v) -> put(k, v) }
    }
}
