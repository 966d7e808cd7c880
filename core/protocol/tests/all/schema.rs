//! Golden test: the committed JSON Schema matches the types.
//! Regenerate with `DCL_UPDATE_SCHEMA=1 cargo test -p dcl-protocol --test schema`.

use std::path::PathBuf;

use serde_json::Value;

fn golden_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("schema/dcl-protocol.schema.json")
}

#[test]
fn schema_matches_committed_golden() {
    let generated = dcl_protocol::schema::schema_document();
    let path = golden_path();
    if std::env::var_os("DCL_UPDATE_SCHEMA").is_some_and(|v| !v.is_empty() && v != "0") {
        let mut text = serde_json::to_string_pretty(&generated).expect("serialize schema");
        text.push('\n');
        std::fs::create_dir_all(path.parent().expect("schema dir")).expect("mkdir schema");
        std::fs::write(&path, text).expect("write schema");
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; regenerate with DCL_UPDATE_SCHEMA=1 cargo test -p dcl-protocol --test schema",
            path.display()
        )
    });
    let committed: Value = serde_json::from_str(&committed).expect("golden schema is JSON");
    assert!(
        committed == generated,
        "{} is out of date; regenerate with DCL_UPDATE_SCHEMA=1 cargo test -p dcl-protocol --test schema",
        path.display()
    );
}

#[test]
fn schema_covers_messages_and_payloads() {
    let doc = dcl_protocol::schema::schema_document();
    assert_eq!(
        doc["$schema"].as_str(),
        Some("https://json-schema.org/draft/2020-12/schema")
    );
    let defs = doc["$defs"].as_object().expect("$defs");
    for name in [
        "UserMessage",
        "AssistantMessage",
        "ResultMessage",
        "SystemMessage",
        "ControlRequestEnvelope",
        "ControlResponse",
        "LegacyUsageMessage",
        "HostRequest",
        "InitializeRequest",
        "DclRequest",
        "CanUseToolRequest",
        "ElicitationRequest",
        "PermissionDecision",
        "HookOutput",
        "ElicitationResponse",
        "McpMessageResponse",
        "InitializeResponse",
        "ContextUsageResponse",
        "McpStatusResponse",
        "GetSettingsResponse",
        "RewindFilesResponse",
        "SystemInit",
        "SystemTaskNotification",
    ] {
        assert!(defs.contains_key(name), "$defs lacks {name}");
    }
    // Every line type is a branch of the root.
    let root = doc.to_string();
    for t in ["\"user\"", "\"keep_alive\"", "\"tool_start\"", "\"usage\""] {
        assert!(root.contains(t), "root lacks {t}");
    }
}

#[test]
fn export_schema_bin_prints_the_document() {
    let Some(bin) = option_env!("CARGO_BIN_EXE_export-schema") else {
        return;
    };
    let out = std::process::Command::new(bin)
        .output()
        .expect("run export-schema");
    assert!(out.status.success());
    let printed: Value = serde_json::from_slice(&out.stdout).expect("stdout is JSON");
    assert_eq!(printed, dcl_protocol::schema::schema_document());
}

/// `validate-lines` (built with `--features validate`; skipped otherwise): a trace whose
/// answer breaks its request's type fails with the line named; an empty directory is an
/// error, not a pass.
#[test]
fn validate_lines_bin_judges_a_trace() {
    let Some(bin) = option_env!("CARGO_BIN_EXE_validate-lines") else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("dcl-validate-lines-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("empty")).expect("mkdir");
    let run = |path: &std::path::Path| {
        std::process::Command::new(bin)
            .arg(path)
            .output()
            .expect("run validate-lines")
    };
    let out = run(&dir.join("empty"));
    assert_eq!(
        out.status.code(),
        Some(2),
        "an empty directory must not pass"
    );

    let init = serde_json::to_string(&dcl_protocol::Message::from(dcl_protocol::SystemInit::new(
        "s",
        "u1",
        "/cwd",
        "mock-model",
    )))
    .expect("init line");
    std::fs::write(
        dir.join("t.in"),
        r#"{"type":"control_request","request_id":"r1","request":{"subtype":"set_model","model":"x"}}"#,
    )
    .expect("write .in");
    let answer = r#"{"type":"control_response","session_id":"s","uuid":"u2","response":{"subtype":"success","request_id":"r1","response":{"modle":"x"}}}"#;
    std::fs::write(dir.join("t.out"), format!("{init}\n{answer}\n")).expect("write .out");
    let out = run(&dir);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("t.out:2: answer to set_model"), "{stdout}");
    assert!(!stdout.contains("t.out:1:"), "{stdout}");
    let _ = std::fs::remove_dir_all(&dir);
}
