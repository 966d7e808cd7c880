//! MCP server configurations: the `{"mcpServers": {…}}` JSON of `--mcp-config`, `.mcp.json`
//! and the SDKs' `mcp_servers`, parsed into [`ServerConfig`].
//!
//! Accepted shapes of one server (unknown keys such as `toolOverrides` are ignored):
//!
//! ```json
//! {"type":"stdio","command":"npx","args":["-y","pkg"],"env":{"K":"V"},"cwd":"sub"}
//! {"type":"http","url":"https://host/mcp","headers":{"Authorization":"Bearer …"}}
//! {"type":"sse","url":"https://host/sse","headers":{}}
//! {"type":"sdk","name":"my-tools"}
//! ```
//!
//! `type` may be left out: with `command` it is `stdio`, with `url` it is `http`.
//! `streamable-http`/`streamable_http`/`streamableHttp` are accepted for `http`.

use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};

pub use crate::config_error::ConfigError;
pub(crate) use crate::config_error::type_name;

/// How to reach one MCP server. `Debug` never shows env values or header values.
#[derive(Clone, PartialEq, Eq)]
pub enum ServerConfig {
    /// A child process speaking newline-delimited JSON-RPC on stdin/stdout.
    Stdio {
        command: String,
        args: Vec<String>,
        env: BTreeMap<String, String>,
        /// Working directory of the child; relative paths are taken from the session's cwd.
        cwd: Option<PathBuf>,
    },
    /// Streamable HTTP (MCP 2025-03-26 and later).
    Http {
        url: String,
        headers: BTreeMap<String, String>,
    },
    /// The older HTTP+SSE transport (MCP 2024-11-05): GET an event stream, POST messages.
    Sse {
        url: String,
        headers: BTreeMap<String, String>,
    },
    /// A server that lives in the SDK host; its JSON-RPC rides `control_request{mcp_message}`.
    Sdk { name: String },
}

const REDACTED: &str = "[redacted]";

impl ServerConfig {
    /// `"stdio"`, `"http"`, `"sse"` or `"sdk"`.
    pub fn kind(&self) -> &'static str {
        match self {
            ServerConfig::Stdio { .. } => "stdio",
            ServerConfig::Http { .. } => "http",
            ServerConfig::Sse { .. } => "sse",
            ServerConfig::Sdk { .. } => "sdk",
        }
    }

    /// Parses one server's JSON. `key` (the server's name in `mcpServers`) names SDK servers
    /// that carry no `name` of their own.
    pub fn from_json(key: &str, value: &Value) -> Result<ServerConfig, ConfigError> {
        let obj = value
            .as_object()
            .ok_or_else(|| ConfigError::NotAnObject(type_name(value)))?;
        let kind = match obj.get("type") {
            None | Some(Value::Null) => {
                if obj.contains_key("command") {
                    "stdio"
                } else if obj.contains_key("url") {
                    "http"
                } else {
                    return Err(ConfigError::NoCommandOrUrl);
                }
            }
            Some(Value::String(t)) => match t.as_str() {
                "stdio" => "stdio",
                "http" | "streamable-http" | "streamable_http" | "streamableHttp" => "http",
                "sse" => "sse",
                "sdk" => "sdk",
                other => {
                    return Err(ConfigError::UnknownType(other.to_string()));
                }
            },
            Some(other) => {
                return Err(ConfigError::wrong_type("type", "a string", other));
            }
        };
        match kind {
            "stdio" => {
                let command = match obj.get("command") {
                    Some(Value::String(c)) if !c.trim().is_empty() => c.clone(),
                    Some(Value::String(_)) => return Err(ConfigError::EmptyCommand),
                    Some(other) => {
                        return Err(ConfigError::wrong_type("command", "a string", other));
                    }
                    None => return Err(ConfigError::MissingCommand),
                };
                let args = match obj.get("args") {
                    None | Some(Value::Null) => Vec::new(),
                    Some(Value::Array(items)) => items
                        .iter()
                        .map(|a| scalar_string(a).ok_or(ConfigError::ArgsNotStrings))
                        .collect::<Result<_, _>>()?,
                    Some(other) => {
                        return Err(ConfigError::wrong_type("args", "an array", other));
                    }
                };
                let env = string_map(obj.get("env"), "env")?;
                let cwd = match obj.get("cwd") {
                    None | Some(Value::Null) => None,
                    Some(Value::String(c)) if c.is_empty() => None,
                    Some(Value::String(c)) => Some(PathBuf::from(c)),
                    Some(other) => {
                        return Err(ConfigError::wrong_type("cwd", "a string", other));
                    }
                };
                Ok(ServerConfig::Stdio {
                    command,
                    args,
                    env,
                    cwd,
                })
            }
            "http" | "sse" => {
                let url = match obj.get("url") {
                    Some(Value::String(u)) => u.clone(),
                    Some(other) => {
                        return Err(ConfigError::wrong_type("url", "a string", other));
                    }
                    None => return Err(ConfigError::MissingUrl(kind)),
                };
                check_url(&url)?;
                let headers = string_map(obj.get("headers"), "headers")?;
                if kind == "http" {
                    Ok(ServerConfig::Http { url, headers })
                } else {
                    Ok(ServerConfig::Sse { url, headers })
                }
            }
            _ => {
                let name = match obj.get("name") {
                    Some(Value::String(n)) if !n.is_empty() => n.clone(),
                    None | Some(Value::Null) | Some(Value::String(_)) => key.to_string(),
                    Some(other) => {
                        return Err(ConfigError::wrong_type("name", "a string", other));
                    }
                };
                Ok(ServerConfig::Sdk { name })
            }
        }
    }

    /// The JSON form, as written to config files (secrets included).
    pub fn to_json(&self) -> Value {
        self.to_json_inner(false)
    }

    /// The JSON form with env values and header values replaced by `"[redacted]"`, for
    /// status reports and listings.
    pub fn to_json_redacted(&self) -> Value {
        self.to_json_inner(true)
    }

    fn to_json_inner(&self, redact: bool) -> Value {
        let secret_map = |m: &BTreeMap<String, String>| -> Value {
            Value::Object(
                m.iter()
                    .map(|(k, v)| {
                        let v = if redact { REDACTED } else { v.as_str() };
                        (k.clone(), Value::String(v.to_string()))
                    })
                    .collect::<Map<String, Value>>(),
            )
        };
        match self {
            ServerConfig::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                let mut o = Map::new();
                o.insert("type".into(), json!("stdio"));
                o.insert("command".into(), json!(command));
                o.insert("args".into(), json!(args));
                if !env.is_empty() {
                    o.insert("env".into(), secret_map(env));
                }
                if let Some(cwd) = cwd {
                    o.insert("cwd".into(), json!(cwd.to_string_lossy()));
                }
                Value::Object(o)
            }
            ServerConfig::Http { url, headers } | ServerConfig::Sse { url, headers } => {
                let mut o = Map::new();
                o.insert("type".into(), json!(self.kind()));
                o.insert("url".into(), json!(url));
                if !headers.is_empty() {
                    o.insert("headers".into(), secret_map(headers));
                }
                Value::Object(o)
            }
            ServerConfig::Sdk { name } => json!({"type": "sdk", "name": name}),
        }
    }

    /// Replaces `${VAR}` and `${VAR:-default}` in the command, args, env values, cwd, url and
    /// header values with values from `vars` (the session's environment), as `.mcp.json` files
    /// expect. A variable that is unset and has no default is an error naming it.
    pub fn expand_vars(
        &self,
        vars: &BTreeMap<String, String>,
    ) -> Result<ServerConfig, ConfigError> {
        let mut missing = Vec::new();
        let mut ex = |s: &str| expand(s, vars, &mut missing);
        let out = match self {
            ServerConfig::Stdio {
                command,
                args,
                env,
                cwd,
            } => ServerConfig::Stdio {
                command: ex(command),
                args: args.iter().map(|a| ex(a)).collect(),
                env: env.iter().map(|(k, v)| (k.clone(), ex(v))).collect(),
                cwd: cwd
                    .as_ref()
                    .map(|c| PathBuf::from(ex(&c.to_string_lossy()))),
            },
            ServerConfig::Http { url, headers } => ServerConfig::Http {
                url: ex(url),
                headers: headers.iter().map(|(k, v)| (k.clone(), ex(v))).collect(),
            },
            ServerConfig::Sse { url, headers } => ServerConfig::Sse {
                url: ex(url),
                headers: headers.iter().map(|(k, v)| (k.clone(), ex(v))).collect(),
            },
            ServerConfig::Sdk { name } => ServerConfig::Sdk { name: name.clone() },
        };
        if missing.is_empty() {
            Ok(out)
        } else {
            missing.sort();
            missing.dedup();
            Err(ConfigError::MissingVariables(missing))
        }
    }
}

impl fmt::Debug for ServerConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let keys = |m: &BTreeMap<String, String>| m.keys().cloned().collect::<Vec<_>>();
        match self {
            ServerConfig::Stdio {
                command,
                args,
                env,
                cwd,
            } => f
                .debug_struct("Stdio")
                .field("command", command)
                .field("args", args)
                .field("env_keys", &keys(env))
                .field("cwd", cwd)
                .finish(),
            ServerConfig::Http { url, headers } => f
                .debug_struct("Http")
                .field("url", url)
                .field("header_names", &keys(headers))
                .finish(),
            ServerConfig::Sse { url, headers } => f
                .debug_struct("Sse")
                .field("url", url)
                .field("header_names", &keys(headers))
                .finish(),
            ServerConfig::Sdk { name } => f.debug_struct("Sdk").field("name", name).finish(),
        }
    }
}

impl serde::Serialize for ServerConfig {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_json().serialize(s)
    }
}

impl<'de> serde::Deserialize<'de> for ServerConfig {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        ServerConfig::from_json("", &v).map_err(serde::de::Error::custom)
    }
}

/// Parses `--mcp-config`: inline JSON (starts with `{`) or the path of a JSON file (relative
/// to `cwd`). The JSON is `{"mcpServers": {"<name>": {…}}}`; `{}` means no servers. Every bad
/// server is reported, each by name.
pub fn parse_mcp_config(
    arg: &str,
    cwd: &Path,
) -> Result<BTreeMap<String, ServerConfig>, ConfigError> {
    let trimmed = arg.trim();
    let (value, source) = if trimmed.starts_with('{') {
        let v: Value = serde_json::from_str(trimmed).map_err(ConfigError::InvalidInlineJson)?;
        (v, "--mcp-config".to_string())
    } else if trimmed.is_empty() {
        return Err(ConfigError::EmptyArgument);
    } else {
        let path = cwd.join(trimmed);
        let text = std::fs::read_to_string(&path).map_err(|source| ConfigError::ReadFile {
            path: path.clone(),
            source,
        })?;
        let v: Value =
            serde_json::from_str(&text).map_err(|source| ConfigError::InvalidFileJson {
                path: path.clone(),
                source,
            })?;
        (v, path.display().to_string())
    };
    parse_servers_json(&value).map_err(|e| e.within(source))
}

/// Parses a whole `{"mcpServers": {…}}` document.
pub fn parse_servers_json(value: &Value) -> Result<BTreeMap<String, ServerConfig>, ConfigError> {
    let obj = value
        .as_object()
        .ok_or_else(|| ConfigError::NotADocument(type_name(value)))?;
    let servers = match obj.get("mcpServers") {
        Some(Value::Object(s)) => s,
        Some(Value::Null) => return Ok(BTreeMap::new()),
        Some(other) => {
            return Err(ConfigError::wrong_type("mcpServers", "an object", other));
        }
        None if obj.is_empty() => return Ok(BTreeMap::new()),
        None => return Err(ConfigError::NoMcpServersKey),
    };
    let mut out = BTreeMap::new();
    let mut errors: Vec<ConfigError> = Vec::new();
    for (name, server) in servers {
        if name.is_empty() {
            errors.push(ConfigError::EmptyName);
            continue;
        }
        match ServerConfig::from_json(name, server) {
            Ok(c) => {
                out.insert(name.clone(), c);
            }
            Err(e) => errors.push(ConfigError::Server {
                name: name.clone(),
                error: Box::new(e),
            }),
        }
    }
    match errors.len() {
        0 => Ok(out),
        1 => Err(errors.remove(0)),
        _ => Err(ConfigError::Several(errors)),
    }
}

fn check_url(url: &str) -> Result<(), ConfigError> {
    let parsed = reqwest::Url::parse(url).map_err(|source| ConfigError::InvalidUrl {
        url: url.to_string(),
        source,
    })?;
    match parsed.scheme() {
        "http" | "https" => Ok(()),
        other => Err(ConfigError::UrlScheme(other.to_string())),
    }
}

fn scalar_string(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn string_map(
    v: Option<&Value>,
    what: &'static str,
) -> Result<BTreeMap<String, String>, ConfigError> {
    match v {
        None | Some(Value::Null) => Ok(BTreeMap::new()),
        Some(Value::Object(m)) => m
            .iter()
            .map(|(k, v)| {
                scalar_string(v)
                    .map(|s| (k.clone(), s))
                    .ok_or_else(|| ConfigError::NotAString {
                        map: what,
                        key: k.clone(),
                    })
            })
            .collect(),
        Some(other) => Err(ConfigError::wrong_type(what, "an object of strings", other)),
    }
}

/// `${VAR}` / `${VAR:-default}` expansion; anything else (including a lone `$`) is literal.
fn expand(s: &str, vars: &BTreeMap<String, String>, missing: &mut Vec<String>) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return out;
        };
        let inner = &after[..end];
        let (name, default) = match inner.split_once(":-") {
            Some((n, d)) => (n, Some(d)),
            None => (inner, None),
        };
        let valid = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            out.push_str(&rest[start..start + 2 + end + 1]);
        } else {
            match (vars.get(name), default) {
                (Some(v), _) => out.push_str(v),
                (None, Some(d)) => out.push_str(d),
                (None, None) => missing.push(name.to_string()),
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_and_defaults() {
        let v = json!({"mcpServers": {
            "a": {"command": "node", "args": ["x.js", 3], "env": {"K": "V"}},
            "b": {"type": "http", "url": "https://h/mcp", "headers": {"Authorization": "Bearer s"}},
            "c": {"type": "sse", "url": "http://127.0.0.1:1/sse"},
            "d": {"type": "sdk", "name": "calc"},
            "e": {"type": "sdk"},
            "f": {"url": "http://h/mcp", "toolOverrides": {}},
        }});
        let m = parse_servers_json(&v).unwrap();
        assert_eq!(
            m["a"],
            ServerConfig::Stdio {
                command: "node".into(),
                args: vec!["x.js".into(), "3".into()],
                env: [("K".to_string(), "V".to_string())].into(),
                cwd: None
            }
        );
        assert_eq!(m["b"].kind(), "http");
        assert_eq!(m["c"].kind(), "sse");
        assert_eq!(
            m["d"],
            ServerConfig::Sdk {
                name: "calc".into()
            }
        );
        assert_eq!(m["e"], ServerConfig::Sdk { name: "e".into() });
        assert_eq!(m["f"].kind(), "http");
        // Round trip through the file form.
        for c in m.values() {
            assert_eq!(&ServerConfig::from_json("e", &c.to_json()).unwrap(), c);
        }
    }

    #[test]
    fn errors_name_each_bad_server() {
        let v = json!({"mcpServers": {"x": {"type": "ws"}, "y": {"args": []}, "z": {"type":"http","url":"ftp://a"}}});
        let e = parse_servers_json(&v).unwrap_err();
        assert!(e.to_string().contains("\"x\""), "{e}");
        assert!(e.to_string().contains("\"y\""), "{e}");
        assert!(e.to_string().contains("\"z\""), "{e}");
        assert!(parse_servers_json(&json!([])).is_err());
        assert!(parse_servers_json(&json!({"servers": {}})).is_err());
        assert!(parse_servers_json(&json!({})).unwrap().is_empty());
    }

    #[test]
    fn inline_or_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("m.json"),
            r#"{"mcpServers":{"s":{"command":"x"}}}"#,
        )
        .unwrap();
        let m = parse_mcp_config("m.json", dir.path()).unwrap();
        assert!(m.contains_key("s"));
        let m = parse_mcp_config(r#" {"mcpServers":{"t":{"type":"sdk"}}}"#, dir.path()).unwrap();
        assert!(m.contains_key("t"));
        let e = parse_mcp_config("nope.json", dir.path()).unwrap_err();
        assert!(e.to_string().contains("nope.json"), "{e}");
        assert!(parse_mcp_config("{not json", dir.path()).is_err());
    }

    #[test]
    fn debug_hides_secrets() {
        let c = ServerConfig::Http {
            url: "https://h".into(),
            headers: [("Authorization".to_string(), "Bearer SECRET".to_string())].into(),
        };
        let s = ServerConfig::Stdio {
            command: "x".into(),
            args: vec![],
            env: [("TOKEN".to_string(), "SECRET".to_string())].into(),
            cwd: None,
        };
        for c in [c, s] {
            assert!(!format!("{c:?}").contains("SECRET"));
            assert!(!c.to_json_redacted().to_string().contains("SECRET"));
            assert!(c.to_json().to_string().contains("SECRET"));
        }
    }

    #[test]
    fn variable_expansion() {
        let vars: BTreeMap<String, String> = [("HOME".to_string(), "/h".to_string())].into();
        let c = ServerConfig::Stdio {
            command: "${HOME}/bin/x".into(),
            args: vec!["${NOPE:-d}".into(), "$HOME".into(), "${bad name}".into()],
            env: BTreeMap::new(),
            cwd: None,
        };
        let ServerConfig::Stdio { command, args, .. } = c.expand_vars(&vars).unwrap() else {
            panic!()
        };
        assert_eq!(command, "/h/bin/x");
        assert_eq!(args, vec!["d", "$HOME", "${bad name}"]);
        let c = ServerConfig::Http {
            url: "http://h/${MISSING}".into(),
            headers: BTreeMap::new(),
        };
        assert!(
            c.expand_vars(&vars)
                .unwrap_err()
                .to_string()
                .contains("MISSING")
        );
    }
}
