//! The fixture MCP server's tools (rmcp server side). Shared by the `dcl-mcp-fixture` binary
//! and the in-process HTTP/SSE tests.

use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientResult, Content, CreateElicitationRequestParams,
    ElicitationAction, ElicitationSchema, ErrorData, Implementation, ListToolsResult,
    PaginatedRequestParams, Request, ServerCapabilities, ServerInfo, ServerRequest, Tool,
    ToolsCapability,
};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler};
use serde_json::{Value, json};

/// A 1×1 transparent PNG.
pub const PNG_1X1: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

#[derive(Clone, Default)]
pub struct Fixture {
    /// Offer `exit` (ends the process mid-call) and `spawn_grandchild`: only in the binary.
    pub process_tools: bool,
}

fn tool(name: &str, description: &str, schema: Value) -> Option<Tool> {
    serde_json::from_value(json!({"name": name, "description": description, "inputSchema": schema}))
        .ok()
}

fn object(props: Value, required: &[&str]) -> Value {
    json!({"type": "object", "properties": props, "required": required})
}

impl Fixture {
    fn tools(&self) -> Vec<Tool> {
        let mut tools = vec![
            tool(
                "echo",
                "Echo the text back",
                object(json!({"text": {"type": "string"}}), &["text"]),
            ),
            tool(
                "add",
                "Add two numbers",
                object(
                    json!({"a": {"type": "number"}, "b": {"type": "number"}}),
                    &["a", "b"],
                ),
            ),
            tool("fail", "Always fails (isError)", object(json!({}), &[])),
            tool(
                "sleep",
                "Sleep for ms milliseconds",
                object(json!({"ms": {"type": "integer"}}), &["ms"]),
            ),
            tool("image", "Return a tiny PNG", object(json!({}), &[])),
            tool("meta", "Return the request's _meta", object(json!({}), &[])),
            tool(
                "ask",
                "Ask the user a question (MCP elicitation); returns the answer, \"declined\" or \"cancelled\"",
                object(json!({"question": {"type": "string"}}), &["question"]),
            ),
        ];
        if self.process_tools {
            tools.push(tool(
                "exit",
                "Exit the server process",
                object(json!({}), &[]),
            ));
            tools.push(tool(
                "env",
                "Return an environment variable",
                object(json!({"name": {"type": "string"}}), &["name"]),
            ));
            tools.push(tool(
                "cwd",
                "Return the working directory",
                object(json!({}), &[]),
            ));
            tools.push(tool(
                "spawn_grandchild",
                "Start a long sleep in the background; returns its pid",
                object(json!({}), &[]),
            ));
        }
        tools.into_iter().flatten().collect()
    }
}

fn text(t: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![Content::text(t.into())])
}

/// `ask`: sends `elicitation/create` (a form with one string, `answer`) and reports the
/// outcome: the answer (or the whole content when it has no string `answer`), `declined`
/// or `cancelled`.
async fn ask(
    question: String,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResult, ErrorData> {
    let schema: ElicitationSchema = serde_json::from_value(json!({
        "type": "object",
        "properties": {"answer": {"type": "string", "description": "Your answer"}},
        "required": ["answer"],
    }))
    .map_err(|e| ErrorData::internal_error(format!("bad schema: {e}"), None))?;
    let request = ServerRequest::CreateElicitationRequest(Request::new(
        CreateElicitationRequestParams::FormElicitationParams {
            meta: None,
            message: question,
            requested_schema: schema,
        },
    ));
    match context.peer.send_request(request).await {
        Ok(ClientResult::CreateElicitationResult(r)) => Ok(text(match r.action {
            ElicitationAction::Accept => match r.content {
                Some(c) => match c.get("answer").and_then(Value::as_str) {
                    Some(a) => a.to_string(),
                    None => c.to_string(),
                },
                None => "accepted".to_string(),
            },
            ElicitationAction::Decline => "declined".to_string(),
            ElicitationAction::Cancel => "cancelled".to_string(),
        })),
        Ok(other) => Err(ErrorData::internal_error(
            format!("unexpected elicitation result: {other:?}"),
            None,
        )),
        Err(e) => Err(ErrorData::internal_error(
            format!("elicitation failed: {e}"),
            None,
        )),
    }
}

impl ServerHandler for Fixture {
    fn get_info(&self) -> ServerInfo {
        let mut implementation = Implementation::from_build_env();
        implementation.name = "dcl-mcp-fixture".into();
        implementation.version = "1.2.3".into();
        ServerInfo {
            capabilities: ServerCapabilities {
                tools: Some(ToolsCapability::default()),
                ..Default::default()
            },
            server_info: implementation,
            ..Default::default()
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult {
            tools: self.tools(),
            ..Default::default()
        })
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let args = Value::Object(request.arguments.clone().unwrap_or_default());
        let arg_str = |k: &str| {
            args.get(k)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        let arg_f64 = |k: &str| args.get(k).and_then(Value::as_f64).unwrap_or(0.0);
        match request.name.as_ref() {
            "echo" => Ok(text(arg_str("text"))),
            "add" => Ok(text(format!("{}", arg_f64("a") + arg_f64("b")))),
            "fail" => Ok(CallToolResult::error(vec![Content::text(
                "this tool always fails",
            )])),
            "sleep" => {
                let ms = args.get("ms").and_then(Value::as_u64).unwrap_or(0);
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_millis(ms)) => Ok(text(format!("slept {ms} ms"))),
                    _ = context.ct.cancelled() => Err(ErrorData::internal_error("cancelled", None)),
                }
            }
            "image" => Ok(CallToolResult::success(vec![
                Content::text("a pixel"),
                Content::image(PNG_1X1, "image/png"),
            ])),
            "ask" => ask(arg_str("question"), &context).await,
            "meta" => Ok(text(
                serde_json::to_string(&context.meta.0).unwrap_or_default(),
            )),
            "exit" if self.process_tools => {
                eprintln!("fixture: exiting on request");
                std::process::exit(3)
            }
            "env" if self.process_tools => Ok(text(
                std::env::var(arg_str("name")).unwrap_or_else(|_| "<unset>".into()),
            )),
            "cwd" if self.process_tools => Ok(text(
                std::env::current_dir()
                    .map(|d| d.display().to_string())
                    .unwrap_or_default(),
            )),
            "spawn_grandchild" if self.process_tools => {
                match std::process::Command::new("sleep").arg("1000").spawn() {
                    Ok(child) => Ok(text(child.id().to_string())),
                    Err(e) => Err(ErrorData::internal_error(e.to_string(), None)),
                }
            }
            other => Err(ErrorData::invalid_params(
                format!("unknown tool {other}"),
                None,
            )),
        }
    }
}
