//! `dcl auth status`, as the ACP adapters run it.

use std::process::Command;

fn run(args: &[&str], key: Option<&str>) -> (serde_json::Value, bool) {
    let home = tempfile::tempdir().expect("home");
    let mut cmd = Command::new(crate::common::dcl_bin());
    cmd.args(args)
        .env("HOME", home.path())
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("ANTHROPIC_AUTH_TOKEN")
        .env_remove("DCL_API_KEY")
        .env_remove("CLAUDE_CODE_USE_BEDROCK")
        .env_remove("CLAUDE_CODE_USE_VERTEX")
        .env_remove("CLAUDE_CODE_USE_FOUNDRY");
    if let Some(k) = key {
        cmd.env("ANTHROPIC_API_KEY", k);
    }
    let out = cmd.output().expect("run dcl");
    let json = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    (json, out.status.success())
}

#[test]
fn auth_status_json_with_and_without_a_key() {
    let (s, ok) = run(&["auth", "status", "--json"], Some("sk-test"));
    assert!(ok);
    assert_eq!(s["loggedIn"], true);
    assert_eq!(s["apiKeySource"], "ANTHROPIC_API_KEY");
    let (s, ok) = run(&["--settings", "{}", "auth", "status", "--json"], None);
    assert!(!ok);
    assert_eq!(s["loggedIn"], false);
}
