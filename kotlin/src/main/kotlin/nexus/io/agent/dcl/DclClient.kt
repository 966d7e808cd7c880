package nexus.io.agent.dcl

import kotlinx.coroutines.CoroutineScope
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.Job
import kotlinx.coroutines.SupervisorJob
import kotlinx.coroutines.cancel
import kotlinx.coroutines.channels.Channel
import kotlinx.coroutines.flow.Flow
import kotlinx.coroutines.flow.flow
import kotlinx.coroutines.launch
import kotlinx.coroutines.withContext
import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.addJsonObject
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.intOrNull
import kotlinx.serialization.json.jsonObject
import kotlinx.serialization.json.put
import kotlinx.serialization.json.putJsonArray
import kotlinx.serialization.json.putJsonObject
import nexus.io.agent.dcl.ffi.DclException
import nexus.io.agent.dcl.ffi.DclSession
import nexus.io.agent.dcl.ffi.Event
import nexus.io.agent.dcl.ffi.Pulled
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicBoolean

/**
 * One dcl session in this process, for several turns. Callbacks (permissions, hooks, MCP
 * tools) run as coroutines on [Dispatchers.Default], one per request, so a slow one stalls
 * nothing else; a callback that blocks a thread should move to `Dispatchers.IO` itself.
 *
 * ```
 * DclClient.open(DclOptions(model = "mock-model")).use { client ->
 *     client.query("hello")
 *     client.receiveResponse().collect { println(it) }
 * }
 * ```
 */
class DclClient private constructor(
    internal val ffi: DclSession,
    private val options: DclOptions,
) : AutoCloseable {
    private val messages = Channel<Message>(Channel.UNLIMITED)
    private val scope = CoroutineScope(SupervisorJob() + Dispatchers.Default)
    private val running = ConcurrentHashMap<String, Job>()
    private val hooks: List<HookCallback> = options.hooks.values.flatten().flatMap { it.hooks }
    private val tools: Map<String, Map<String, McpTool>> =
        options.mcpServers.associate { s -> s.name to s.tools.associateBy { it.name } }
    private val key = Poller.register(this)
    private val closed = AtomicBoolean(false)

    /** The session's id. */
    val sessionId: String get() = ffi.sessionId()

    companion object {
        /** Opens a session and sends `initialize` (hooks, MCP servers). */
        suspend fun open(options: DclOptions = DclOptions()): DclClient = withContext(Dispatchers.IO) {
            val text = options.toJson().toString()
            val ffi = options.cliPath?.let { DclSession.openCli(it, text, null) } ?: DclSession.open(text, null)
            val client = DclClient(ffi, options)
            try {
                client.initialize()
            } catch (e: Throwable) {
                client.close()
                throw e
            }
            client
        }
    }

    private fun initialize() {
        for (server in options.mcpServers) {
            val spec = buildJsonObject {
                put("name", server.name)
                put("version", server.version)
                putJsonArray("tools") {
                    for (t in server.tools) addJsonObject {
                        put("name", t.name)
                        put("description", t.description)
                        put("inputSchema", t.inputSchema)
                    }
                }
            }
            ffi.addMcpServer(spec.toString())
        }
        val spec = buildJsonObject {
            putJsonArray("hooks") {
                // The same order as [hooks]: callback n of the spec is hooks[n].
                for ((event, matchers) in options.hooks) for (m in matchers) addJsonObject {
                    put("event", event)
                    m.matcher?.let { put("matcher", it) }
                    put("callbacks", m.hooks.size)
                    m.timeoutSecs?.let { put("timeout", it) }
                }
            }
        }
        Poller.arm(this, key)
        ffi.request(ffi.initializeRequest(spec.toString()), null)
    }

    /** Sends a prompt (one user turn); read its messages with [receiveResponse]. */
    suspend fun query(prompt: String) {
        val line = buildJsonObject {
            put("type", "user")
            putJsonObject("message") {
                put("role", "user")
                put("content", prompt)
            }
        }.toString()
        while (true) {
            try {
                ffi.send(line)
                return
            } catch (e: DclException.Busy) {
                kotlinx.coroutines.delay(2)
            }
        }
    }

    /** Every message until the session ends. */
    fun receiveMessages(): Flow<Message> = flow { for (m in messages) emit(m) }

    /** The messages up to and including the next result. */
    fun receiveResponse(): Flow<Message> = flow {
        for (m in messages) {
            emit(m)
            if (m.type == "result") return@flow
        }
    }

    /** Sends a control request (`{"subtype": "set_model", …}`) and returns dcl's answer. */
    suspend fun request(request: JsonObject): JsonObject = withContext(Dispatchers.IO) {
        Json.parseToJsonElement(ffi.request(request.toString(), null)).jsonObject
    }

    /** Stops the running turn; its result follows. */
    suspend fun interrupt() {
        request(buildJsonObject { put("subtype", "interrupt") })
    }

    /** Switches the model for the next turns (null: the default). */
    suspend fun setModel(model: String?): JsonObject = request(buildJsonObject {
        put("subtype", "set_model")
        put("model", model)
    })

    /** `default`, `acceptEdits`, `plan`, `bypassPermissions` or `dontAsk`. */
    suspend fun setPermissionMode(mode: String): JsonObject = request(buildJsonObject {
        put("subtype", "set_permission_mode")
        put("mode", mode)
    })

    /** No more prompts: the session ends once queued turns finish. */
    fun endInput() = ffi.endInput()

    /** Stops the session (a running turn is cancelled) and frees it; once, whoever calls it again. */
    override fun close() {
        if (!closed.compareAndSet(false, true)) return
        ffi.shutdown()
        scope.cancel()
        Poller.forget(key)
        messages.close()
        ffi.close()
    }

    // ------------------------------------------------------------------ the poller's side

    /** Takes every ready event, then re-arms. Runs on the poller thread: never blocks. */
    internal fun wake(key: Long) {
        while (true) {
            when (val pulled = ffi.tryEvents(256u)) {
                is Pulled.Events -> pulled.events.forEach(::route)
                is Pulled.TimedOut -> return Poller.arm(this, key)
                is Pulled.Ended -> {
                    Poller.forget(key)
                    messages.close()
                    return
                }
            }
        }
    }

    internal fun fail(cause: Throwable) {
        Poller.forget(key)
        messages.close(cause)
    }

    private fun route(e: Event) {
        when (e.kind) {
            "message" -> messages.trySend(Message(e.payload))
            "cancel" -> running.remove(e.id)?.cancel()
            "control_response" -> Unit // answers to ffi.call; this client uses ffi.request
            else -> {
                val job = scope.launch(start = kotlinx.coroutines.CoroutineStart.LAZY) {
                    try {
                        answer(e)
                    } finally {
                        running.remove(e.id)
                    }
                }
                running[e.id] = job
                job.start()
            }
        }
    }

    private suspend fun answer(e: Event) {
        val payload = Json.parseToJsonElement(e.payload).jsonObject
        val outcome = runCatching { callback(e.kind, payload) }
        val error = outcome.exceptionOrNull()
        if (error is kotlinx.coroutines.CancellationException) throw error // withdrawn: nobody waits
        try {
            if (error != null) {
                ffi.respondError(e.id, error.message ?: error.toString())
            } else {
                ffi.respond(e.id, outcome.getOrThrow().toString())
            }
        } catch (_: DclException.NotPending) {
            // Withdrawn meanwhile (its timeout): nobody waits for the answer.
        } catch (_: DclException.Closed) {
            // The session ended meanwhile: likewise.
        } catch (_: IllegalStateException) {
            // close() freed the handle meanwhile (the generated code refuses calls then).
        }
    }

    private suspend fun callback(kind: String, p: JsonObject): JsonObject = when (kind) {
        "can_use_tool" -> {
            val decide = options.canUseTool ?: error("canUseTool callback is not provided")
            val input = p["input"] as? JsonObject ?: JsonObject(emptyMap())
            val tool = (p["tool_name"] as? JsonPrimitive)?.content ?: ""
            when (val r = decide(tool, input)) {
                is PermissionResult.Allow -> buildJsonObject {
                    put("behavior", "allow")
                    put("updatedInput", r.updatedInput ?: input)
                }
                is PermissionResult.Deny -> buildJsonObject {
                    put("behavior", "deny")
                    put("message", r.message)
                }
            }
        }
        "hook_callback" -> {
            val index = (p["callback_index"] as? JsonPrimitive)?.intOrNull
            val hook = index?.let { hooks.getOrNull(it) } ?: error("no hook callback for ${p["callback_id"]}")
            hook(p["input"] as? JsonObject ?: JsonObject(emptyMap()))
        }
        "tool_call" -> {
            val server = (p["server"] as? JsonPrimitive)?.content
            val name = (p["tool"] as? JsonPrimitive)?.content
            val tool = tools[server]?.get(name) ?: error("tool $name of server $server not found")
            val r = tool.handler(p["arguments"] as? JsonObject ?: JsonObject(emptyMap()))
            buildJsonObject {
                putJsonArray("content") {
                    addJsonObject {
                        put("type", "text")
                        put("text", r.text)
                    }
                }
                put("is_error", r.isError)
            }
        }
        else -> error("unsupported request $kind")
    }
}

/**
 * Runs one prompt in a new session: a cold [Flow] of its messages up to the result; the
 * session is closed when the flow completes or its collector stops.
 */
fun query(prompt: String, options: DclOptions = DclOptions()): Flow<Message> = flow {
    DclClient.open(options).use { client ->
        client.query(prompt)
        client.receiveResponse().collect { emit(it) }
    }
}
