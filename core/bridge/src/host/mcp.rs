//! The JSON-RPC side of an in-process MCP server: what a language registers is its name,
//! version and tools (name, description, JSON Schema); everything but running a tool's
//! function is answered here, so no language re-implements `initialize`, `tools/list`,
//! argument validation or error shapes.

use serde::Deserialize;
use serde_json::{Map, Value, json};

/// The MCP revision answered when the client names none.
pub const DEFAULT_PROTOCOL_VERSION: &str = "2025-06-18";

/// JSON-RPC "method not found".
pub const METHOD_NOT_FOUND: i64 = -32601;
/// JSON-RPC "internal error".
pub const INTERNAL_ERROR: i64 = -32603;

/// One tool as the language declares it.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpToolSpec {
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// A JSON Schema (`{"type": "object", ...}`).
    #[serde(default = "empty_object_schema")]
    pub input_schema: Value,
    #[serde(default)]
    pub annotations: Option<Value>,
}

fn empty_object_schema() -> Value {
    json!({"type": "object", "properties": {}})
}

/// A server as the language declares it. `raw` servers are answered by the language
/// itself (a foreign MCP implementation, e.g. claude-agent-sdk's): their JSON-RPC is
/// forwarded untouched.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpServerSpec {
    pub name: String,
    #[serde(default = "default_version")]
    pub version: String,
    #[serde(default)]
    pub tools: Vec<McpToolSpec>,
    #[serde(default)]
    pub raw: bool,
    /// What the server tells the model about itself (`initialize`'s `instructions`).
    #[serde(default)]
    pub instructions: Option<String>,
}

fn default_version() -> String {
    "1.0.0".into()
}

/// A tool whose schema was compiled once, when the server was registered.
struct Tool {
    spec: McpToolSpec,
    validator: Option<jsonschema::Validator>,
}

/// An in-process MCP server: its tools and their compiled schemas.
pub struct McpServer {
    pub name: String,
    pub version: String,
    pub raw: bool,
    instructions: Option<String>,
    tools: Vec<Tool>,
}

/// What one JSON-RPC message asks of the server.
#[derive(Debug, Clone, PartialEq)]
pub enum McpStep {
    /// The answer, complete.
    Reply(Value),
    /// A notification (or a stray response): nothing to answer.
    NoReply,
    /// Run the language's function for `tool`; its outcome goes to [`McpServer::tool_result`].
    Call {
        jsonrpc_id: Value,
        tool: String,
        arguments: Value,
    },
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum McpSpecError {
    #[error("MCP server {server:?}: tool {tool:?} has an invalid input schema: {message}")]
    BadSchema {
        server: String,
        tool: String,
        message: String,
    },
    #[error("MCP server {server:?}: tool {tool:?} is declared twice")]
    DuplicateTool { server: String, tool: String },
}

impl McpServer {
    /// Compiles the tools' schemas; a schema that cannot be compiled is refused here, at
    /// registration, rather than at the first call.
    pub fn new(spec: McpServerSpec) -> Result<McpServer, McpSpecError> {
        let mut tools: Vec<Tool> = Vec::with_capacity(spec.tools.len());
        for t in spec.tools {
            if tools.iter().any(|known| known.spec.name == t.name) {
                return Err(McpSpecError::DuplicateTool {
                    server: spec.name,
                    tool: t.name,
                });
            }
            let validator = if spec.raw {
                None
            } else {
                Some(jsonschema::validator_for(&t.input_schema).map_err(|e| {
                    McpSpecError::BadSchema {
                        server: spec.name.clone(),
                        tool: t.name.clone(),
                        message: e.to_string(),
                    }
                })?)
            };
            tools.push(Tool { spec: t, validator });
        }
        Ok(McpServer {
            name: spec.name,
            version: spec.version,
            raw: spec.raw,
            instructions: spec.instructions.filter(|i| !i.is_empty()),
            tools,
        })
    }

    /// The `tools/list` entries.
    pub fn list_tools(&self) -> Vec<Value> {
        self.tools
            .iter()
            .map(|t| {
                let mut entry = Map::new();
                entry.insert("name".into(), json!(t.spec.name));
                entry.insert("description".into(), json!(t.spec.description));
                entry.insert("inputSchema".into(), t.spec.input_schema.clone());
                if let Some(a) = t.spec.annotations.as_ref().filter(|a| !a.is_null()) {
                    entry.insert("annotations".into(), a.clone());
                }
                Value::Object(entry)
            })
            .collect()
    }

    /// Answers one JSON-RPC message, or says which tool to run.
    pub fn handle(&self, message: &Value) -> McpStep {
        let method = message.get("method").and_then(Value::as_str);
        let (Some(id), Some(method)) = (message.get("id"), method) else {
            return McpStep::NoReply;
        };
        let params = message.get("params").cloned().unwrap_or(Value::Null);
        match method {
            "initialize" => {
                let version = params
                    .get("protocolVersion")
                    .and_then(Value::as_str)
                    .filter(|v| !v.is_empty())
                    .unwrap_or(DEFAULT_PROTOCOL_VERSION);
                let mut result = json!({
                    "protocolVersion": version,
                    "capabilities": {"tools": {"listChanged": false}},
                    "serverInfo": {"name": self.name, "version": self.version},
                });
                if let (Some(text), Some(obj)) = (&self.instructions, result.as_object_mut()) {
                    obj.insert("instructions".into(), json!(text));
                }
                McpStep::Reply(ok(id, result))
            }
            "ping" => McpStep::Reply(ok(id, json!({}))),
            "tools/list" => McpStep::Reply(ok(id, json!({"tools": self.list_tools()}))),
            "tools/call" => {
                let name = params.get("name").and_then(Value::as_str).unwrap_or("");
                let arguments = match params.get("arguments") {
                    None | Some(Value::Null) => json!({}),
                    Some(a) => a.clone(),
                };
                let Some(tool) = self.tools.iter().find(|t| t.spec.name == name) else {
                    return McpStep::Reply(ok(id, tool_error(&format!("Tool '{name}' not found"))));
                };
                if let Some(problem) = tool
                    .validator
                    .as_ref()
                    .and_then(|v| v.iter_errors(&arguments).next().map(|e| e.to_string()))
                {
                    return McpStep::Reply(ok(
                        id,
                        tool_error(&format!("Input validation error: {problem}")),
                    ));
                }
                McpStep::Call {
                    jsonrpc_id: id.clone(),
                    tool: name.to_string(),
                    arguments,
                }
            }
            other => McpStep::Reply(rpc_error(
                id.clone(),
                METHOD_NOT_FOUND,
                &format!("Method not found: {other}"),
            )),
        }
    }

    /// The `tools/call` answer for a tool's outcome: its result normalised to MCP content
    /// (`is_error` or `isError`), or a failure the model reads as an error result — a tool
    /// that raised is the model's problem to handle, not a protocol error.
    pub fn tool_result(jsonrpc_id: &Value, outcome: Result<Value, super::CallbackFailed>) -> Value {
        let result = match outcome {
            Err(failed) => tool_error(&failed.message),
            Ok(Value::Object(result)) => {
                let is_error = result
                    .get("is_error")
                    .or_else(|| result.get("isError"))
                    .and_then(Value::as_bool)
                    .unwrap_or(false);
                let content = result
                    .get("content")
                    .and_then(Value::as_array)
                    .map(|items| content(items))
                    .unwrap_or_default();
                let mut answer = json!({"content": content, "isError": is_error});
                // Structured output travels as is: the model's client reads it beside content.
                if let (Some(structured), Some(obj)) =
                    (result.get("structuredContent"), answer.as_object_mut())
                {
                    obj.insert("structuredContent".into(), structured.clone());
                }
                answer
            }
            Ok(other) => tool_error(&format!(
                "the tool returned {}, expected an object",
                json_kind(&other)
            )),
        };
        ok(jsonrpc_id, result)
    }
}

fn json_kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Content items as MCP carries them: text and images pass, an embedded text resource
/// becomes text, anything else is dropped (with a warning: the model would not read it).
fn content(items: &[Value]) -> Vec<Value> {
    items
        .iter()
        .filter_map(|item| {
            let Some(obj) = item.as_object() else {
                let text = match item {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                return Some(json!({"type": "text", "text": text}));
            };
            match obj.get("type").and_then(Value::as_str) {
                Some("text") => Some(json!({
                    "type": "text",
                    "text": obj.get("text").and_then(Value::as_str).unwrap_or(""),
                })),
                Some("image") => Some(json!({
                    "type": "image",
                    "data": obj.get("data").cloned().unwrap_or(Value::Null),
                    "mimeType": obj.get("mimeType").cloned().unwrap_or(Value::Null),
                })),
                Some("resource") => {
                    let text = obj.get("resource").and_then(|r| r.get("text"))?;
                    Some(json!({"type": "text", "text": text.as_str().unwrap_or("")}))
                }
                other => {
                    tracing::warn!("unsupported content type {other:?} in a tool result; skipped");
                    None
                }
            }
        })
        .collect()
}

fn ok(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

fn tool_error(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}], "isError": true})
}

/// A JSON-RPC error answer.
pub fn rpc_error(id: Value, code: i64, message: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn calc() -> McpServer {
        McpServer::new(
            serde_json::from_value(json!({
                "name": "calc", "version": "2.0.0",
                "tools": [{"name": "add", "description": "Add", "inputSchema": {
                    "type": "object",
                    "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
                    "required": ["a", "b"]}}]
            }))
            .unwrap(),
        )
        .unwrap()
    }

    #[test]
    fn initialize_list_and_notifications_are_answered_here() {
        let s = calc();
        let McpStep::Reply(init) = s.handle(&json!({"jsonrpc": "2.0", "id": 0,
            "method": "initialize", "params": {"protocolVersion": "2025-11-25"}}))
        else {
            panic!()
        };
        assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
        assert_eq!(
            init["result"]["serverInfo"],
            json!({"name": "calc", "version": "2.0.0"})
        );
        assert_eq!(
            s.handle(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"})),
            McpStep::NoReply
        );
        let McpStep::Reply(list) =
            s.handle(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        else {
            panic!()
        };
        assert_eq!(list["result"]["tools"][0]["name"], "add");
        let McpStep::Reply(unknown) =
            s.handle(&json!({"jsonrpc": "2.0", "id": 3, "method": "resources/list"}))
        else {
            panic!()
        };
        assert_eq!(unknown["error"]["code"], METHOD_NOT_FOUND);
    }

    #[test]
    fn calls_are_validated_before_the_language_runs_them() {
        let s = calc();
        let call = |args: Value| {
            s.handle(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "add", "arguments": args}}))
        };
        let McpStep::Reply(bad) = call(json!({"a": "x"})) else {
            panic!()
        };
        assert_eq!(bad["result"]["isError"], true);
        assert!(
            bad["result"]["content"][0]["text"]
                .as_str()
                .unwrap()
                .contains("validation")
        );
        assert_eq!(
            call(json!({"a": 1, "b": 2})),
            McpStep::Call {
                jsonrpc_id: json!(2),
                tool: "add".into(),
                arguments: json!({"a": 1, "b": 2})
            }
        );
        let answer = McpServer::tool_result(
            &json!(2),
            Ok(json!({"content": [{"type": "text", "text": "3"}], "is_error": false})),
        );
        assert_eq!(
            answer["result"],
            json!({"content": [{"type": "text", "text": "3"}], "isError": false})
        );
        let failed = McpServer::tool_result(&json!(2), Err("boom".into()));
        assert_eq!(failed["result"]["isError"], true);
    }

    #[test]
    fn a_bad_schema_is_refused_at_registration() {
        let spec: McpServerSpec = serde_json::from_value(json!({"name": "s",
            "tools": [{"name": "t", "inputSchema": {"type": 12}}]}))
        .unwrap();
        assert!(matches!(
            McpServer::new(spec),
            Err(McpSpecError::BadSchema { .. })
        ));
    }
}
