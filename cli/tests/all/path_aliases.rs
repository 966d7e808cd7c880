//! The path decision through the CLI (`dcl -p`, where an ask is a denial): a deny rule
//! naming a symlink binds its target, a protected file reached through a link or by its
//! link target's own name is not written, a cwd with glob characters anchors rules
//! literally — each next to a twin that runs. Real symlinks in temp dirs.

use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

/// Runs one tool call through `dcl -p` in `cwd`; the final `result` message.
fn call(cwd: &Path, home: &Path, tool: &str, input: Value, extra: &[&str]) -> Value {
    let prompt = format!("FAKE_TOOL {tool} {input}");
    let out = Command::new(env!("CARGO_BIN_EXE_dcl"))
        .args([
            "-p",
            &prompt,
            "--output-format",
            "json",
            "--model",
            "mock-model",
        ])
        .args(extra)
        .current_dir(cwd)
        .env("HOME", home)
        .env_remove("DCL_CONFIG_DIR")
        .env_remove("CLAUDE_CONFIG_DIR")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

fn denials(result: &Value) -> usize {
    result["permission_denials"].as_array().map_or(0, Vec::len)
}

fn write(p: &Path, text: &str) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

#[test]
fn a_deny_rule_naming_a_link_binds_its_target_through_the_cli() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().canonicalize().unwrap();
    write(&cwd.join("config/dev.env"), "DEV_SECRET_MARKER\n");
    write(&cwd.join("config/other.env"), "OTHER_VISIBLE\n");
    symlink("config/dev.env", cwd.join(".env")).unwrap();
    let deny = ["--disallowedTools", "Read(./.env)"];
    for p in [".env", "config/dev.env"] {
        let r = call(&cwd, home.path(), "Read", json!({"file_path": p}), &deny);
        assert_eq!(denials(&r), 1, "{p}: {r}");
        assert!(!r.to_string().contains("DEV_SECRET_MARKER"), "{p}: {r}");
    }
    let r = call(
        &cwd,
        home.path(),
        "Bash",
        json!({"command": "cat config/dev.env"}),
        &[
            "--disallowedTools",
            "Read(./.env)",
            "--allowedTools",
            "Bash",
        ],
    );
    assert_eq!(denials(&r), 1, "{r}");
    // Twin: the neighbour reads.
    let r = call(
        &cwd,
        home.path(),
        "Read",
        json!({"file_path": "config/other.env"}),
        &deny,
    );
    assert_eq!(denials(&r), 0, "{r}");
}

#[test]
fn protected_links_and_their_targets_are_not_written_through_the_cli() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().canonicalize().unwrap();
    write(&cwd.join("config/mcp.json"), "{}");
    symlink("config/mcp.json", cwd.join(".mcp.json")).unwrap();
    let planted = r#"{"mcpServers":{"x":{"command":"touch","args":["pwned"]}}}"#;
    let accept = [
        "--permission-mode",
        "acceptEdits",
        "--allowedTools",
        "Write",
    ];
    for p in [".mcp.json", "config/mcp.json", ".VSCode/tasks.json"] {
        let r = call(
            &cwd,
            home.path(),
            "Write",
            json!({"file_path": p, "content": planted}),
            &accept,
        );
        assert_eq!(denials(&r), 1, "{p}: {r}");
    }
    assert_eq!(
        std::fs::read_to_string(cwd.join("config/mcp.json")).unwrap(),
        "{}"
    );
    assert!(!cwd.join(".VSCode").exists());
    // Twins: a look-alike name and a link to an ordinary file are written.
    write(&cwd.join("real.txt"), "r");
    symlink("real.txt", cwd.join("alias.txt")).unwrap();
    for p in ["my.vscode.txt", "alias.txt"] {
        let r = call(
            &cwd,
            home.path(),
            "Write",
            json!({"file_path": p, "content": "new"}),
            &accept,
        );
        assert_eq!(denials(&r), 0, "{p}: {r}");
    }
    assert_eq!(
        std::fs::read_to_string(cwd.join("real.txt")).unwrap(),
        "new"
    );
}

#[test]
fn a_cwd_with_glob_characters_anchors_rules_literally_through_the_cli() {
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let cwd = base.join("proj[1]");
    write(&cwd.join("secret/key.txt"), "SECRET_MARKER\n");
    write(&base.join("proj1/secret/key.txt"), "SIBLING_VISIBLE\n");
    let rules = [
        "--disallowedTools",
        "Read(./secret/**)",
        "--allowedTools",
        "Read",
    ];
    let r = call(
        &cwd,
        home.path(),
        "Read",
        json!({"file_path": "secret/key.txt"}),
        &rules,
    );
    assert_eq!(denials(&r), 1, "{r}");
    let sibling = base.join("proj1/secret/key.txt");
    let r = call(
        &cwd,
        home.path(),
        "Read",
        json!({"file_path": sibling.to_str().unwrap()}),
        &rules,
    );
    assert_eq!(denials(&r), 0, "{r}");
}
