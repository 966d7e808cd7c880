package nexus.io.agent.dcl

import kotlinx.coroutines.CompletableDeferred
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.awaitCancellation
import kotlinx.coroutines.delay
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withTimeout
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.buildJsonObject
import kotlinx.serialization.json.int
import kotlinx.serialization.json.jsonPrimitive
import kotlinx.serialization.json.put
import kotlinx.serialization.json.putJsonArray
import kotlinx.serialization.json.putJsonObject
import nexus.io.agent.dcl.ffi.DclException
import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertNotNull
import org.junit.jupiter.api.Assertions.assertNull
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Assertions.fail
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.io.TempDir
import java.io.File
import java.nio.file.Path
import java.util.Collections
import java.util.concurrent.atomic.AtomicInteger

class DclClientTest {
    @TempDir
    lateinit var tmp: Path

    private var boxes = 0

    /** A working directory and a HOME of its own, on the mock model. */
    private fun box(cliPath: String? = null): Pair<File, DclOptions> {
        val root = tmp.resolve("box${boxes++}").toFile()
        val cwd = File(root, "work").apply { mkdirs() }
        val home = File(root, "home").apply { mkdirs() }
        return cwd to DclOptions(
            model = "mock-model",
            cwd = cwd.path,
            env = mapOf("HOME" to home.path, "PATH" to (System.getenv("PATH") ?: "")),
            persistSession = false,
            cliPath = cliPath,
        )
    }

    private fun <T> run(block: suspend kotlinx.coroutines.CoroutineScope.() -> T): T =
        runBlocking { withTimeout(60_000) { block() } }

    private fun List<Message>.result(): Message {
        val last = lastOrNull() ?: fail("no messages")
        assertEquals("result", last.type, "the last message is not a result: $last")
        return last
    }

    private fun List<Message>.text() = joinToString("\n") { it.raw }

    @Test
    fun oneShotQuery() = run {
        val msgs = query("hello", box().second).toList()
        val r = msgs.result()
        assertFalse(r.isError)
        assertEquals("Hello from the fake model.", r.result)
        assertEquals("system", msgs.first().type)
        assertEquals("init", msgs.first().subtype)
    }

    @Test
    fun multiTurnKeepsTheSessionId() = run {
        DclClient.open(box().second).use { client ->
            val ids = (0 until 2).map { i ->
                client.query("turn $i")
                client.receiveResponse().toList().result().sessionId
            }
            assertNotNull(ids[0])
            assertEquals(listOf(client.sessionId, client.sessionId), ids)
        }
    }

    private fun permissionAllowAndDeny(cliPath: String?) = run {
        val (cwd, base) = box(cliPath)
        val asked = Collections.synchronizedList(mutableListOf<String>())
        val options = base.copy(canUseTool = { tool, input ->
            asked += tool
            val path = (input["file_path"] as? JsonPrimitive)?.content ?: ""
            if (path.endsWith("denied.txt")) PermissionResult.Deny("not here") else PermissionResult.Allow()
        })
        DclClient.open(options).use { client ->
            for (f in listOf("allowed.txt", "denied.txt")) {
                client.query("FAKE_WRITE $f")
                client.receiveResponse().toList().result()
            }
        }
        assertEquals("hello\n", File(cwd, "allowed.txt").readText())
        assertFalse(File(cwd, "denied.txt").exists(), "denied.txt was written")
        assertEquals(listOf("Write", "Write"), asked.toList())
    }

    @Test
    fun permissionAllowAndDenyWithTheirFiles() = permissionAllowAndDeny(null)

    /** The same through the subprocess transport: the session in a `dcl` child. */
    @Test
    fun permissionAllowAndDenyInADclChild() =
        permissionAllowAndDeny(System.getProperty("dcl.cli") ?: fail("-Ddcl.cli is not set"))

    @Test
    fun aHookCallbackBlocksBashAndItsTwinRunsIt() {
        for (block in listOf(true, false)) run {
            val calls = AtomicInteger()
            val hook: HookCallback = { input ->
                calls.incrementAndGet()
                assertEquals("Bash", input["tool_name"]?.jsonPrimitive?.content)
                if (block) {
                    buildJsonObject {
                        put("decision", "block")
                        put("reason", "no shells today")
                    }
                } else {
                    JsonObject(emptyMap())
                }
            }
            val options = box().second.copy(
                allowedTools = listOf("Bash"),
                hooks = mapOf("PreToolUse" to listOf(HookMatcher("Bash", listOf(hook)))),
            )
            val msgs = query("FAKE_BASH", options).toList()
            assertEquals(1, calls.get())
            assertEquals(block, msgs.text().contains("no shells today"), msgs.text())
            // Blocked, the call's result is the hook's error; its twin ran `echo hi`.
            assertEquals(block, msgs.text().contains("\"is_error\":true"), msgs.text())
        }
    }

    @Test
    fun anInProcessMcpToolIsCalledByTheModel() = run {
        var got: JsonObject? = null
        val schema = buildJsonObject {
            put("type", "object")
            putJsonObject("properties") {
                putJsonObject("a") { put("type", "integer") }
                putJsonObject("b") { put("type", "integer") }
            }
            putJsonArray("required") {
                add(JsonPrimitive("a"))
                add(JsonPrimitive("b"))
            }
        }
        val add = McpTool("add", "Add two integers", schema) { args ->
            got = args
            ToolResult("sum=${args["a"]!!.jsonPrimitive.int + args["b"]!!.jsonPrimitive.int}")
        }
        val options = box().second.copy(
            mcpServers = listOf(McpServer("calc", listOf(add))),
            allowedTools = listOf("mcp__calc__add"),
        )
        val msgs = query("""FAKE_TOOL mcp__calc__add {"a": 20, "b": 22}""", options).toList()
        assertNotNull(got)
        assertTrue(msgs.text().contains("sum=42"), msgs.text())
        // Its twin: arguments that do not fit the schema never reach the handler.
        got = null
        val bad = query("""FAKE_TOOL mcp__calc__add {"a": "twenty"}""", options).toList()
        assertNull(got)
        assertTrue(bad.text().lowercase().contains("validation"), bad.text())
    }

    @Test
    fun interruptEndsTheTurn() = run {
        DclClient.open(box().second).use { client ->
            client.query("FAKE_SLOW")
            delay(300)
            client.interrupt()
            val msgs = client.receiveResponse().toList()
            val r = msgs.result()
            assertTrue(r.isError, r.raw)
            assertEquals("error_during_execution", r.subtype)
            assertFalse(msgs.text().contains("w39"), "the slow answer ran to its end")
        }
    }

    @Test
    fun aHundredSessionsAndOneSlowCallbackStallsNone() = run {
        val n = 100
        val gate = CompletableDeferred<Unit>()
        val finished = Collections.synchronizedList(mutableListOf<Int>())
        (0 until n).map { i ->
            val (cwd, base) = box()
            val options = base.copy(canUseTool = { _, _ ->
                if (i == 0) gate.await()
                PermissionResult.Allow()
            })
            async {
                query("FAKE_WRITE out.txt", options).toList().result()
                assertEquals("hello\n", File(cwd, "out.txt").readText(), "session $i")
                synchronized(finished) {
                    finished += i
                    if (finished.size == n - 1) gate.complete(Unit)
                }
            }
        }.awaitAll()
        assertEquals(n, finished.size)
        assertEquals(0, finished.last(), "the stalled session was not last: $finished")
    }

    @Test
    fun closingWithACallbackPendingCancelsIt() = run {
        val entered = CompletableDeferred<Unit>()
        val cancelled = CompletableDeferred<Unit>()
        val (cwd, base) = box()
        val options = base.copy(canUseTool = { _, _ ->
            entered.complete(Unit)
            try {
                awaitCancellation()
            } finally {
                cancelled.complete(Unit)
            }
        })
        val client = DclClient.open(options)
        client.query("FAKE_WRITE never.txt")
        entered.await()
        client.close()
        cancelled.await()
        // The messages end (the flow completes) without a result, and closing again is a no-op.
        assertTrue(client.receiveMessages().toList().none { it.type == "result" })
        client.close()
        assertFalse(File(cwd, "never.txt").exists())
    }

    @Test
    fun badOptionsNameTheOption() = run {
        val options = box().second.copy(extra = mapOf("maxTurns" to JsonPrimitive(-1)))
        try {
            DclClient.open(options).close()
            fail("maxTurns -1 was accepted")
        } catch (e: DclException.InvalidOptions) {
            assertEquals("maxTurns", e.option)
        }
    }
}
