package nexus.io.agent.dcl.bench

import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.async
import kotlinx.coroutines.awaitAll
import kotlinx.coroutines.flow.first
import kotlinx.coroutines.flow.toList
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.sync.Semaphore
import kotlinx.coroutines.sync.withPermit
import nexus.io.agent.dcl.DclClient
import nexus.io.agent.dcl.DclOptions
import java.io.File
import java.nio.file.Files

/**
 * The Kotlin SDK in process against the dcl subprocess (the same API with
 * `DclOptions.cliPath`: the Rust host's subprocess transport, a `dcl` child driven over
 * stream-json): time to first message, per-turn overhead, and the memory of N open sessions
 * (PSS of the JVM plus its dcl children), on the mock model. kotlin/bench/run.sh runs it.
 * Properties: dcl.cli (the executable), bench.n (20), bench.sessions (1000),
 * bench.cliSessions (100).
 */
fun main() = runBlocking {
    val cli = System.getProperty("dcl.cli") ?: error("-Ddcl.cli is required")
    val n = Integer.getInteger("bench.n", 20)
    val root = Files.createTempDirectory("dcl-kotlin-bench").toFile()
    try {
        for ((name, path, sessions) in listOf(
            Triple("in-process", null, Integer.getInteger("bench.sessions", 1000)),
            Triple("subprocess", cli, Integer.getInteger("bench.cliSessions", 100)),
        )) {
            val (first, turns) = timings(root, path, n)
            val kib = memory(root, path, sessions)
            println(
                "kotlin %-10s first message ms median %.2f p90 %.2f | turn ms median %.2f p90 %.2f | %d sessions: PSS +%.0f MiB (%.0f KiB each)".format(
                    name, quantile(first, 0.5), quantile(first, 0.9), quantile(turns, 0.5), quantile(turns, 0.9),
                    sessions, kib / 1024, kib / sessions,
                ),
            )
        }
    } finally {
        root.deleteRecursively()
    }
}

private fun options(root: File, cli: String?): DclOptions {
    val dir = Files.createTempDirectory(root.toPath(), "s").toFile()
    return DclOptions(
        model = "mock-model",
        cwd = dir.path,
        persistSession = false,
        cliPath = cli,
        env = mapOf("HOME" to dir.path, "PATH" to (System.getenv("PATH") ?: "")),
    )
}

private fun ms(t0: Long) = (System.nanoTime() - t0) / 1e6

/** Open + initialize + first message of a one-shot query; then turns on one warm client. */
private suspend fun timings(root: File, cli: String?, n: Int): Pair<List<Double>, List<Double>> {
    val first = mutableListOf<Double>()
    repeat(n + 2) { i ->
        val t0 = System.nanoTime()
        DclClient.open(options(root, cli)).use { c ->
            c.query("hi")
            c.receiveMessages().first()
            if (i >= 2) first += ms(t0) // two warm-ups
            c.receiveResponse().toList()
        }
    }
    val turns = mutableListOf<Double>()
    DclClient.open(options(root, cli)).use { c ->
        repeat(n * 3 + 2) { i ->
            val t0 = System.nanoTime()
            c.query("hi")
            c.receiveResponse().toList()
            if (i >= 2) turns += ms(t0)
        }
    }
    return first to turns
}

/** PSS growth (KiB) of the JVM and its children with [count] sessions open, each after one turn. */
private suspend fun memory(root: File, cli: String?, count: Int): Double = kotlinx.coroutines.coroutineScope {
    System.gc()
    val before = pss()
    val gate = Semaphore(8)
    val open = (0 until count).map {
        async(Dispatchers.Default) {
            gate.withPermit {
                val c = DclClient.open(options(root, cli))
                c.query("hi")
                c.receiveResponse().toList()
                c
            }
        }
    }.awaitAll()
    System.gc()
    val grown = pss() - before
    open.forEach { it.close() }
    grown
}

private fun pss(): Double {
    val self = ProcessHandle.current()
    return pssOf(self.pid()) + self.children().toList().sumOf { pssOf(it.pid()) }
}

private fun pssOf(pid: Long): Double =
    runCatching { File("/proc/$pid/smaps_rollup").readLines() }.getOrDefault(emptyList())
        .firstOrNull { it.startsWith("Pss:") }?.split(Regex("\\s+"))?.get(1)?.toDouble() ?: 0.0

private fun quantile(xs: List<Double>, q: Double): Double = xs.sorted()[(q * (xs.size - 1)).toInt()]
