//! `--tools`: unknown built-in names warn and are skipped; `mcp__…` names are MCP tools
//! and need no warning.

use std::process::Command;

fn stderr_of(tools: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_dcl"))
        .args(["-p", "say hi", "--model", "mock-model", "--tools", tools])
        .current_dir(dir.path())
        .env("HOME", home.path())
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("RUST_LOG")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stderr).unwrap()
}

#[test]
fn mcp_names_in_tools_need_no_warning() {
    let err = stderr_of("Read,mcp__srv__tool,mcp__other__*");
    assert!(!err.contains("mcp__"), "{err}");
    assert!(!err.contains("unknown tool"), "{err}");
}

#[test]
fn an_unknown_builtin_name_still_warns() {
    let err = stderr_of("Read,Bogus,mcp__srv__tool");
    assert!(err.contains("unknown tool \"Bogus\" skipped"), "{err}");
    assert!(!err.contains("mcp__srv__tool"), "{err}");
}
