//! [`Session::describe`]: the session as a typed-event front end shows it before any turn
//! (the stream-json front end reads the same from the `initialize` answer).

use dcl_events::{CommandInfo, ModelChoice, SessionDescription};

use super::Session;
use super::init::mode_name;
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
