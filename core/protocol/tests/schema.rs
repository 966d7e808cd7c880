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
