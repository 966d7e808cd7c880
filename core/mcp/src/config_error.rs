//! Why an MCP server configuration was refused: `--mcp-config`, `.mcp.json`, the
//! `mcpServers` of settings and control requests. `Display` is the text users see.

use std::path::PathBuf;

use serde_json::Value;

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("expected an object, got {0}")]
    NotAnObject(&'static str),
    #[error("missing \"command\" (stdio server) or \"url\" (http/sse server)")]
    NoCommandOrUrl,
    #[error("unknown \"type\" {0:?}: expected stdio, http, sse or sdk")]
    UnknownType(String),
    /// `"field" must be <expected>, got <a JSON type>`.
    #[error("\"{field}\" must be {expected}, got {got}")]
    WrongType {
        field: &'static str,
        expected: &'static str,
        got: &'static str,
    },
    #[error("\"command\" is empty")]
    EmptyCommand,
    #[error("a stdio server needs \"command\"")]
    MissingCommand,
    #[error("\"args\" must hold strings")]
    ArgsNotStrings,
    /// `http` or `sse`.
    #[error("an {0} server needs \"url\"")]
    MissingUrl(&'static str),
    #[error("\"{map}\".{key} must be a string")]
    NotAString { map: &'static str, key: String },
    #[error("invalid \"url\" {url:?}: {source}")]
    InvalidUrl {
        url: String,
        source: url::ParseError,
    },
    #[error("\"url\" must be http or https, got {0}:")]
    UrlScheme(String),
    #[error("missing environment variable(s) used in the config: {}", .0.join(", "))]
    MissingVariables(Vec<String>),
    #[error("invalid --mcp-config JSON: {0}")]
    InvalidInlineJson(serde_json::Error),
    #[error("--mcp-config: empty value")]
    EmptyArgument,
    #[error("cannot read MCP config file {}: {source}", path.display())]
    ReadFile {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("invalid JSON in MCP config file {}: {source}", path.display())]
    InvalidFileJson {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("expected {{\"mcpServers\": {{…}}}}, got {0}")]
    NotADocument(&'static str),
    #[error("expected {{\"mcpServers\": {{…}}}}: no \"mcpServers\" key")]
    NoMcpServersKey,
    #[error("a server has an empty name")]
    EmptyName,
    #[error("MCP server {name:?}: {error}")]
    Server {
        name: String,
        error: Box<ConfigError>,
    },
    /// Every bad server of a document, each named.
    #[error("{}", join(.0))]
    Several(Vec<ConfigError>),
    /// An error in a document, prefixed with where the document came from.
    #[error("{origin}: {error}")]
    In {
        origin: String,
        error: Box<ConfigError>,
    },
}

impl ConfigError {
    pub(crate) fn wrong_type(field: &'static str, expected: &'static str, got: &Value) -> Self {
        ConfigError::WrongType {
            field,
            expected,
            got: type_name(got),
        }
    }

    /// This error, said to be in `origin` (a file or `--mcp-config`).
    pub fn within(self, origin: impl Into<String>) -> Self {
        ConfigError::In {
            origin: origin.into(),
            error: Box::new(self),
        }
    }
}

fn join(errors: &[ConfigError]) -> String {
    errors
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// How a JSON value's kind reads in an error message ("a string", "an array").
pub(crate) fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
