//! What a tool returns.

use dcl_protocol::ToolResultContent;
use serde_json::Value;

/// A tool's result: what the model sees, whether it is an error, and the structured
/// `tool_use_result` shown to SDK hosts.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    pub content: ToolResultContent,
    pub is_error: bool,
    pub structured: Option<Value>,
}

impl ToolOutput {
    pub fn ok(text: impl Into<String>) -> Self {
        ToolOutput {
            content: ToolResultContent::Text(text.into()),
            is_error: false,
            structured: None,
        }
    }

    /// An error result; the model reads the message, hosts see `"Error: <message>"`.
    pub fn error(message: impl Into<String>) -> Self {
        let message = message.into();
        ToolOutput {
            structured: Some(Value::String(format!("Error: {message}"))),
            content: ToolResultContent::Text(message),
            is_error: true,
        }
    }

    pub fn with_structured(mut self, structured: Value) -> Self {
        self.structured = Some(structured);
        self
    }
}

/// Decodes tool input into its typed form, or an error result naming the problem.
pub fn parse_input<T: serde::de::DeserializeOwned>(
    tool: &str,
    input: Value,
) -> Result<T, ToolOutput> {
    serde_json::from_value(input).map_err(|e| {
        ToolOutput::error(format!(
            "<tool_use_error>InputValidationError: {tool} failed due to the following issue: {e}</tool_use_error>"
        ))
    })
}
