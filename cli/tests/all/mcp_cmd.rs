//! `dcl mcp add|add-json|list|get|remove` with a scratch HOME and working directory.

use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

struct Dirs {
    home: tempfile::TempDir,
    cwd: tempfile::TempDir,
}

impl Dirs {
    fn new() -> Dirs {
        Dirs {
            home: tempfile::tempdir().unwrap(),
            cwd: tempfile::tempdir().unwrap(),
        }
    }

    fn dcl(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_dcl"))
            .arg("mcp")
            .args(args)
            .current_dir(self.cwd.path())
            .env("HOME", self.home.path())
            .env_remove("DCL_CONFIG_DIR")
            .env("MCP_TIMEOUT", "5000")
            .output()
            .unwrap()
    }

    fn ok(&self, args: &[&str]) -> String {
        let out = self.dcl(args);
        assert!(
            out.status.success(),
            "dcl mcp {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn fails(&self, args: &[&str]) -> String {
        let out = self.dcl(args);
        assert_eq!(out.status.code(), Some(1), "dcl mcp {args:?} should fail");
        String::from_utf8_lossy(&out.stderr).into_owned()
    }

    fn json(&self, path: &Path) -> Value {
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }
}

/// A minimal stdio MCP server in POSIX sh: answers `initialize` and `tools/list`.
const SH_SERVER: &str = r#"while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
  case "$line" in
    *'"initialize"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"sh","version":"1"}}}\n' "$id" ;;
    *'"tools/list"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}}\n' "$id" ;;
  esac
done"#;

#[test]
fn usage_and_empty_list() {
    let d = Dirs::new();
    assert!(d.ok(&[]).contains("Usage: dcl mcp"));
    assert!(d.ok(&["help"]).contains("add-json"));
    assert!(d.ok(&["list"]).contains("No MCP servers configured"));
    let e = d.fails(&["frobnicate"]);
    assert!(e.contains("unknown `dcl mcp` command"), "{e}");
}

#[test]
fn add_get_list_remove_a_stdio_server() {
    let d = Dirs::new();
    let out = d.ok(&[
        "add",
        "-e",
        "TOKEN=sekrit",
        "--env=MODE=fast",
        "files",
        "--",
        "npx",
        "-y",
        "server-files",
        "/tmp",
    ]);
    assert!(out.contains("Added stdio MCP server files"), "{out}");
    let local = d.cwd.path().join(".dcl/mcp.local.json");
    let v = d.json(&local);
    let s = &v["mcpServers"]["files"];
    assert_eq!(s["command"], "npx");
    assert_eq!(s["args"], serde_json::json!(["-y", "server-files", "/tmp"]));
    assert_eq!(s["env"]["TOKEN"], "sekrit");
    assert_eq!(s["env"]["MODE"], "fast");

    let out = d.ok(&["get", "files"]);
    assert!(out.contains("Scope: Local config"), "{out}");
    assert!(out.contains("Command: npx"), "{out}");
    assert!(out.contains("TOKEN=[redacted]"), "{out}");
    assert!(!out.contains("sekrit"), "{out}");

    // Without `--`, everything after the command is still the server's argv.
    d.ok(&[
        "add",
        "-s",
        "user",
        "other",
        "node",
        "server.js",
        "--port",
        "3",
    ]);
    let v = d.json(&d.home.path().join(".dcl/mcp.json"));
    assert_eq!(
        v["mcpServers"]["other"]["args"],
        serde_json::json!(["server.js", "--port", "3"])
    );

    let e = d.fails(&["add", "files", "npx"]);
    assert!(e.contains("already exists"), "{e}");

    let out = d.ok(&["remove", "files"]);
    assert!(
        out.contains("Removed MCP server files from local config"),
        "{out}"
    );
    assert!(d.json(&local)["mcpServers"].as_object().unwrap().is_empty());
    let e = d.fails(&["get", "files"]);
    assert!(e.contains("No MCP server named"), "{e}");
    let e = d.fails(&["remove", "files"]);
    assert!(e.contains("No MCP server named"), "{e}");
}

#[test]
fn http_sse_and_json_servers_in_each_scope() {
    let d = Dirs::new();
    d.ok(&[
        "add",
        "--scope",
        "user",
        "--transport",
        "http",
        "-H",
        "Authorization: Bearer tok",
        "remote",
        "http://127.0.0.1:9/mcp",
    ]);
    let v = d.json(&d.home.path().join(".dcl/mcp.json"));
    assert_eq!(v["mcpServers"]["remote"]["type"], "http");
    assert_eq!(
        v["mcpServers"]["remote"]["headers"]["Authorization"],
        "Bearer tok"
    );
    d.ok(&[
        "add",
        "-t",
        "sse",
        "-s",
        "project",
        "old",
        "http://127.0.0.1:9/sse",
    ]);
    d.ok(&[
        "add-json",
        "-s",
        "project",
        "remote",
        r#"{"type":"http","url":"http://127.0.0.1:9/other","toolOverrides":{}}"#,
    ]);
    let v = d.json(&d.cwd.path().join(".mcp.json"));
    assert_eq!(v["mcpServers"]["old"]["type"], "sse");
    assert!(v["mcpServers"]["remote"].get("toolOverrides").is_some());

    // Project beats user.
    let out = d.ok(&["get", "remote"]);
    assert!(out.contains("Scope: Project config"), "{out}");
    assert!(out.contains("URL: http://127.0.0.1:9/other"), "{out}");
    assert!(out.contains("Also defined in (overridden): user"), "{out}");
    assert!(!out.contains("Bearer tok"), "{out}");

    // The project's servers are not approved by any settings: not health-checked (a
    // session would not start them either).
    let out = d.ok(&["list"]);
    assert!(
        out.contains("old: http://127.0.0.1:9/sse (SSE) - ⚠ not approved, not started"),
        "{out}"
    );
    assert!(
        out.contains("remote: http://127.0.0.1:9/other (HTTP) - ⚠ not approved"),
        "{out}"
    );

    let e = d.fails(&["remove", "remote"]);
    assert!(e.contains("--scope"), "{e}");
    d.ok(&["remove", "remote", "--scope", "user"]);
    let out = d.ok(&["remove", "remote"]);
    assert!(out.contains("from project config"), "{out}");
}

#[test]
fn list_and_get_start_a_project_server_only_when_the_settings_approve_it() {
    let d = Dirs::new();
    let servers =
        r#"{"mcpServers":{"planted":{"command":"sh","args":["-c","touch planted.flag"]}}}"#;
    std::fs::write(d.cwd.path().join(".mcp.json"), servers).unwrap();
    let out = d.ok(&["list"]);
    assert!(
        out.contains("planted: sh -c touch planted.flag - ⚠ not approved"),
        "{out}"
    );
    let out = d.ok(&["get", "planted"]);
    assert!(out.contains("Status: ⚠ not approved"), "{out}");
    assert!(
        !d.cwd.path().join("planted.flag").exists(),
        "the planted server ran"
    );
    // Approved in the user's settings: checked (it runs, then fails the handshake).
    let user = d.home.path().join(".claude");
    std::fs::create_dir_all(&user).unwrap();
    std::fs::write(
        user.join("settings.json"),
        r#"{"enabledMcpjsonServers":["planted"]}"#,
    )
    .unwrap();
    let out = d.ok(&["list"]);
    assert!(
        out.contains("planted: sh -c touch planted.flag - ✗ Failed"),
        "{out}"
    );
    assert!(d.cwd.path().join("planted.flag").exists());
}

#[test]
fn list_checks_servers_live() {
    let d = Dirs::new();
    d.ok(&["add", "shell", "sh", "-c", SH_SERVER]);
    d.ok(&["add", "broken", "/nonexistent/mcp-server"]);
    let out = d.ok(&["list"]);
    assert!(out.contains("Checking MCP server health"), "{out}");
    assert!(out.contains("shell: sh -c"), "{out}");
    assert!(out.contains("✓ Connected (1 tools)"), "{out}");
    assert!(
        out.contains("broken: /nonexistent/mcp-server - ✗ Failed to connect"),
        "{out}"
    );
    let out = d.ok(&["get", "shell"]);
    assert!(out.contains("Status: ✓ Connected"), "{out}");
}

#[test]
fn bad_arguments_are_clear_errors() {
    let d = Dirs::new();
    assert!(d.fails(&["add"]).contains("needs a name"));
    assert!(d.fails(&["add", "only-name"]).contains("needs a name"));
    assert!(
        d.fails(&["add", "-t", "ws", "x", "y"])
            .contains("invalid transport")
    );
    assert!(
        d.fails(&["add", "-s", "team", "x", "y"])
            .contains("invalid scope")
    );
    assert!(
        d.fails(&["add", "-e", "NOEQUALS", "x", "y"])
            .contains("KEY=VALUE")
    );
    assert!(
        d.fails(&["add", "bad name", "y"])
            .contains("invalid server name")
    );
    assert!(
        d.fails(&["add", "--bogus", "x", "y"])
            .contains("unknown option")
    );
    let e = d.fails(&["add", "-t", "http", "x", "not a url"]);
    assert!(e.contains("url"), "{e}");
    let e = d.fails(&["add", "-t", "http", "-e", "A=B", "x", "http://h/mcp"]);
    assert!(e.contains("stdio servers only"), "{e}");
    let e = d.fails(&["add", "-H", "A: B", "x", "cmd"]);
    assert!(e.contains("http and sse servers only"), "{e}");
    assert!(
        d.fails(&["add-json", "x", "{nope"])
            .contains("invalid JSON")
    );
    assert!(
        d.fails(&["add-json", "x", r#"{"type":"ws"}"#])
            .contains("unknown \"type\"")
    );
    assert!(d.fails(&["add-json", "x"]).contains("needs a name"));
    assert!(d.fails(&["get"]).contains("exactly one"));
    assert!(d.fails(&["list", "extra"]).contains("no arguments"));
    // A broken config file is named.
    std::fs::write(d.cwd.path().join(".mcp.json"), "{broken").unwrap();
    assert!(d.fails(&["list"]).contains(".mcp.json"));
    // Nothing was written by the failed adds.
    assert!(!d.cwd.path().join(".dcl/mcp.local.json").exists());
}

#[test]
fn user_scope_follows_dcl_home_as_sessions_read_it() {
    let d = Dirs::new();
    let dcl_home = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_dcl"))
        .args(["mcp", "add", "-s", "user", "elsewhere", "node", "x.js"])
        .current_dir(d.cwd.path())
        .env("HOME", d.home.path())
        .env("DCL_CONFIG_DIR", dcl_home.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v = d.json(&dcl_home.path().join("mcp.json"));
    assert_eq!(v["mcpServers"]["elsewhere"]["command"], "node");
    // Twin: without DCL_CONFIG_DIR the user scope is ~/.dcl, untouched by the add above.
    assert!(!d.home.path().join(".dcl/mcp.json").exists());
}
