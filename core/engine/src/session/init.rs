//! The `system/init` line that opens every turn (Qoder also sends one before the
//! `initialize` answer), and the mapping of dcl's own enums to the wire's vocabularies.

use super::mcp::mcp_state;
use dcl_protocol::{InitMcpServer, SystemInit};

use super::emit::{Event, mode_name};
use super::services::SessionCore;

pub(crate) fn emit_init(core: &SessionCore) {
    let live = core.state.live();
    let services = &core.services;
    let servers = services
        .mcp
        .status()
        .into_iter()
        .map(|s| InitMcpServer::with_state(s.name, mcp_state(s.status)))
        .collect();
    let mut init = SystemInit::unstamped(services.cwd.display().to_string(), live.model.clone())
        .with_tools(core.tool_names())
        .with_mcp_servers(servers)
        .with_permission_mode(mode_name(live.permission_mode))
        .with_api_key_source(services.clients.api_key_source());
    init.agents = core.state.with(|s| s.agents.names());
    init.output_style = services.output_style.name.clone();
    init.slash_commands = super::extensions::command_names(core);
    let plugin_errors;
    (init.skills, init.plugins, plugin_errors) =
        crate::extensions::read(&services.extensions, |e| {
            (e.skills.names(), e.plugin_infos(), e.plugin_errors.clone())
        });
    // The reference omits the key when every plugin loaded.
    if !plugin_errors.is_empty() {
        init.extra.insert(
            "plugin_errors".into(),
            serde_json::Value::Array(plugin_errors),
        );
    }
    services.emitter.agent(|| {
        dcl_events::AgentEvent::SessionStarted(super::emit::agent::session_info(
            &init,
            services.emitter.session_id(),
        ))
    });
    services.emitter.event(Event::Init(Box::new(init)));
}

#[cfg(test)]
mod tests {
    use super::*;
    use dcl_mcp::ConnectionStatus;
    use dcl_policy::permissions::PermissionMode;

    #[test]
    fn wire_names_match_the_engine_spellings() {
        for m in [
            PermissionMode::Default,
            PermissionMode::AcceptEdits,
            PermissionMode::Plan,
            PermissionMode::BypassPermissions,
            PermissionMode::DontAsk,
        ] {
            assert_eq!(mode_name(m).as_str(), m.as_str());
        }
        for s in [
            ConnectionStatus::Connected,
            ConnectionStatus::Pending,
            ConnectionStatus::Failed,
            ConnectionStatus::Disabled,
        ] {
            assert_eq!(
                serde_json::to_value(s).unwrap(),
                serde_json::json!(mcp_state(s).as_str())
            );
        }
    }
}
