package nexus.io.agent.dcl

import nexus.io.agent.dcl.ffi.DclWaker
import java.util.concurrent.ConcurrentHashMap
import java.util.concurrent.atomic.AtomicLong

/**
 * The one thread that waits for every session of the process: sessions arm the shared
 * [DclWaker] under their key, and this thread wakes the ones with events. So 1,000 idle
 * sessions cost no thread each, and no Rust thread ever calls into the JVM: this thread pulls.
 */
internal object Poller {
    private val waker = DclWaker()
    private val sessions = ConcurrentHashMap<Long, DclClient>()
    private val nextKey = AtomicLong(1)

    init {
        Thread(::run, "dcl-poller").apply { isDaemon = true }.start()
    }

    fun register(client: DclClient): Long {
        val key = nextKey.getAndIncrement()
        sessions[key] = client
        return key
    }

    fun arm(client: DclClient, key: Long) = client.ffi.arm(waker, key.toULong())

    fun forget(key: Long) {
        sessions.remove(key)
    }

    private fun run() {
        while (true) {
            for (key in waker.waitReady(null)) {
                val client = sessions[key.toLong()] ?: continue
                // A fault in one session must not stop the thread every session needs.
                try {
                    client.wake(key.toLong())
                } catch (t: Throwable) {
                    client.fail(t)
                }
            }
        }
    }
}
