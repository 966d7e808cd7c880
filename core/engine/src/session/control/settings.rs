//! Settings a host changes while the session runs: the permission mode, the thinking
//! budget, `apply_flag_settings`; and `get_settings`.

use dcl_protocol::{
    AppliedSettings, ApplyFlagSettingsResponse, Extra, GetSettingsResponse,
    SetMaxThinkingTokensRequest, SetPermissionModeRequest, SetPermissionModeResponse,
    SettingsSource,
};
use serde_json::{Map, Value, json};

use super::{Answer, ControlError, answer};
use crate::session::actor::Actor;
use crate::session::emit::mode_name;
use crate::session::models;
use dcl_policy::permissions::PermissionMode;

impl Actor {
    /// Acts at once, even during a turn, and says so on the stream.
    pub(super) fn set_permission_mode(&mut self, r: SetPermissionModeRequest) -> Answer {
        let mode = PermissionMode::parse(&r.mode)?;
        self.core.state.with(|s| s.live.permission_mode = mode);
        self.core.services.emitter.permission_mode_changed(mode);
        answer(SetPermissionModeResponse {
            mode: mode_name(mode).into(),
            extra: Extra::new(),
        })
    }

    /// Takes effect at the next turn when one is running.
    pub(super) fn set_max_thinking_tokens(&mut self, r: SetMaxThinkingTokensRequest) -> Answer {
        let value = r.max_thinking_tokens.map(|t| t.min(u32::MAX as u64) as u32);
        let effort = crate::session::effort::from_thinking_tokens(r.max_thinking_tokens);
        let running = self.turn_running();
        self.core.state.with(|s| {
            if running {
                s.live.pending_thinking = Some(value);
                s.live.pending_effort = Some(effort);
            } else {
                s.live.max_thinking_tokens = value;
                s.live.effort = effort;
            }
        });
        Ok(None)
    }
}

/// Keys `apply_flag_settings` may change, and where they land in the settings.
pub(super) const FLAG_KEYS: &[&str] = &["model", "effortLevel", "permissions"];

impl Actor {
    pub(super) fn apply_flag_settings(&mut self, settings: Map<String, Value>) -> Answer {
        // Validate everything before changing anything.
        let mut model = None;
        let mut effort = None;
        let mut mode = None;
        for (k, v) in &settings {
            match k.as_str() {
                "model" => {
                    model = Some(match v {
                        Value::Null => None,
                        Value::String(s) => Some(s.clone()),
                        _ => {
                            return Err(ControlError::FlagSettingType {
                                key: "model",
                                expected: "a string or null",
                            });
                        }
                    })
                }
                "effortLevel" => {
                    effort = Some(match v {
                        Value::Null => None,
                        Value::String(s) => Some(crate::session::effort::parse(s)?),
                        _ => {
                            return Err(ControlError::FlagSettingType {
                                key: "effortLevel",
                                expected: "a string or null",
                            });
                        }
                    })
                }
                "permissions" => {
                    let obj = v.as_object().ok_or(ControlError::FlagSettingType {
                        key: "permissions",
                        expected: "an object",
                    })?;
                    for (pk, pv) in obj {
                        if pk != "defaultMode" {
                            return Err(ControlError::FlagSettingPermission(pk.clone()));
                        }
                        let m = pv.as_str().ok_or(ControlError::FlagSettingType {
                            key: "permissions.defaultMode",
                            expected: "a string",
                        })?;
                        mode = Some(PermissionMode::parse(m)?);
                    }
                }
                other => {
                    return Err(ControlError::FlagSettingUnsupported {
                        key: other.to_string(),
                    });
                }
            }
        }
        let running = self.turn_running();
        let default_model = self.core.services.clients.default_model();
        let applied = self.core.state.with(|s| {
            if let Some(m) = &model {
                s.settings
                    .set_flag("model", m.clone().map_or(Value::Null, Value::String));
            }
            if let Some(e) = &effort {
                s.settings
                    .set_flag("effortLevel", e.clone().map_or(Value::Null, Value::String));
            }
            if let Some(m) = mode {
                s.settings
                    .set_flag("permissions.defaultMode", json!(m.as_str()));
            }
            let live = &mut s.live;
            if let Some(m) = model {
                let resolved = models::resolve_alias(m.as_deref(), default_model);
                if running {
                    live.pending_model = Some(resolved);
                } else {
                    live.model = resolved;
                }
            }
            if let Some(e) = effort {
                if running {
                    live.pending_effort = Some(e);
                } else {
                    live.effort = e;
                }
            }
            if let Some(m) = mode {
                // Permission modes act at once, even during a turn.
                live.permission_mode = m;
            }
            let mut applied = Map::new();
            applied.insert(
                "model".into(),
                json!(
                    live.pending_model
                        .clone()
                        .unwrap_or_else(|| live.model.clone())
                ),
            );
            applied.insert("effort".into(), json!(live.effort));
            ApplyFlagSettingsResponse {
                applied: Some(applied),
                extra: Extra::new(),
            }
        });
        answer(applied)
    }

    /// `applied.sandbox` (issue 24): the session's sandbox and what it cannot do here,
    /// so a host sees missing protections without a fresh `initialize`.
    fn sandbox_applied(&self) -> Extra {
        let mut extra = Extra::new();
        if let Some(sb) = self.core.services.shell.sandbox() {
            extra.insert(
                "sandbox".into(),
                serde_json::json!({"enabled": true, "warnings": sb.warnings()}),
            );
        }
        extra
    }

    pub(super) fn get_settings(&self) -> GetSettingsResponse {
        let (settings, live) = self
            .core
            .state
            .with(|s| (s.settings.clone(), s.live.clone()));
        let sources = settings
            .layers
            .iter()
            .map(|l| SettingsSource {
                source: l.source.to_string(),
                path: l.path.as_ref().map(|p| p.display().to_string()),
                // Values of secret-looking keys never leave dcl (WIRE "tool environment").
                settings: match crate::session::remote_store::redact_store_url(
                    dcl_tools::environment::redact_settings(&Value::Object(l.settings.clone())),
                ) {
                    Value::Object(m) => m,
                    _ => Map::new(),
                },
                extra: Extra::new(),
            })
            .collect();
        GetSettingsResponse {
            effective: match crate::session::remote_store::redact_store_url(
                dcl_tools::environment::redact_settings(&Value::Object(settings.effective())),
            ) {
                Value::Object(m) => m,
                _ => Map::new(),
            },
            sources,
            applied: AppliedSettings {
                model: Some(live.model),
                effort: live.effort,
                extra: self.sandbox_applied(),
            },
            extra: Extra::new(),
        }
    }
}
