package nexus.io.agent.dcl

import kotlinx.serialization.json.Json
import kotlinx.serialization.json.JsonObject
import kotlinx.serialization.json.JsonPrimitive
import kotlinx.serialization.json.booleanOrNull
import kotlinx.serialization.json.jsonObject

/** One line dcl emits (system, assistant, user, result, stream_event…): the common fields, and all of it. */
class Message(val raw: String) {
    val json: JsonObject = Json.parseToJsonElement(raw).jsonObject

    private fun text(key: String): String? = (json[key] as? JsonPrimitive)?.takeIf { it.isString }?.content

    val type: String get() = text("type") ?: ""
    val subtype: String? get() = text("subtype")
    val sessionId: String? get() = text("session_id")

    /** A result's final text. */
    val result: String? get() = text("result")
    val isError: Boolean get() = (json["is_error"] as? JsonPrimitive)?.booleanOrNull ?: false

    override fun toString(): String = raw
}
