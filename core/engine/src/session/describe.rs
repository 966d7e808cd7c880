//! What a typed-event front end reads of a session before any turn ([`Session::describe`]:
//! the stream-json front end reads the same from the `initialize` answer), and the file
//! access it may lend the session ([`Session::set_client_files`]).

use dcl_events::{CommandInfo, ModelChoice, SessionDescription};

use super::Session;
use super::emit::mode_name;
use super::models;

impl Session {
    /// The mode, model, models and commands of the session as they are now.
    pub fn describe(&self) -> SessionDescription {
        let core = &self.core;
        let (model, mode, thinking) = core.state.with(|s| {
            (
                s.live.model.clone(),
                s.live.permission_mode,
                super::effort::current_level(&s.live),
            )
        });
        let services = &core.services;
        let models = models::catalogue(&models::CatalogueView {
            clients: &services.clients,
            current: &model,
            thinking: thinking.as_deref(),
            dialect: services.dialect(),
        })
        .into_iter()
        .map(|m| ModelChoice {
            value: m.value,
            display_name: m.display_name,
            description: m.description,
        })
        .collect();
        let commands = super::extensions::command_infos(core)
            .into_iter()
            .map(|c| CommandInfo {
                name: c.name,
                description: c.description,
                argument_hint: c.argument_hint,
            })
            .collect();
        SessionDescription {
            session_id: services.emitter.session_id(),
            model,
            permission_mode: mode_name(mode).as_str().to_string(),
            models,
            commands,
        }
    }
}

impl Session {
    /// Read, Write and Edit go through the front end's file access from now on (`None`:
    /// dcl's own). Their permission phase is unchanged: only the I/O moves.
    pub fn set_client_files(&self, files: Option<std::sync::Arc<dyn crate::ClientFiles>>) {
        self.core.services.shell.set_client_files(files);
    }

    /// Bash runs in the front end's terminal from now on, unless the OS sandbox is on for
    /// the command (`None`: dcl's own shell).
    pub fn set_client_terminal(&self, terminal: Option<std::sync::Arc<dyn crate::ClientTerminal>>) {
        self.core.services.shell.set_client_terminal(terminal);
    }
}
