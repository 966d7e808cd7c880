//! The `system/init` line that opens every turn (Qoder also sends one before the
//! `initialize` answer).

use serde_json::{Map, Value, json};

use super::services::SessionCore;

pub(crate) fn emit_init(core: &SessionCore) {
    let live = core.state.live();
    let services = &core.services;
    let mut f = Map::new();
    f.insert("cwd".into(), json!(services.cwd.display().to_string()));
    f.insert("tools".into(), json!(core.tool_names()));
    let servers: Vec<Value> = services
        .mcp
        .status()
        .into_iter()
        .map(|s| json!({"name": s.name, "status": s.status}))
        .collect();
    f.insert("mcp_servers".into(), json!(servers));
    f.insert("model".into(), json!(live.model));
    f.insert(
        "permissionMode".into(),
        json!(live.permission_mode.as_str()),
    );
    f.insert("slash_commands".into(), json!([]));
    f.insert(
        "apiKeySource".into(),
        json!(services.clients.api_key_source()),
    );
    f.insert(
        "claude_code_version".into(),
        json!(dcl_protocol::PROTOCOL_LEVEL),
    );
    f.insert("dcl_version".into(), json!(dcl_protocol::DCL_VERSION));
    f.insert("output_style".into(), json!("default"));
    f.insert(
        "agents".into(),
        json!(core.state.with(|s| s.agents.names())),
    );
    f.insert("skills".into(), json!([]));
    f.insert("plugins".into(), json!([]));
    if services.qoder() {
        f.insert(
            "qodercli_version".into(),
            json!(dcl_protocol::PROTOCOL_LEVEL),
        );
        f.insert(
            "protocol_version".into(),
            json!(dcl_protocol::QODER_PROTOCOL_VERSION),
        );
        f.insert(
            "capabilities".into(),
            json!(super::control::QODER_CAPABILITIES),
        );
    }
    services.emitter.system("init", f);
}
