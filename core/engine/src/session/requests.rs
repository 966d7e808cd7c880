//! Control requests of the newest SDKs (Claude TS 0.3.x), each in its own handler, and the
//! hook moments that happen outside any turn: the session's end, a model switch a host
//! asked for, background agents starting and finishing, an MCP server's elicitation.

use std::path::PathBuf;
use std::sync::Arc;

use dcl_protocol::{
    ContentBlock, EmptyResponse, Extra, GenerateSessionTitleRequest, GenerateSessionTitleResponse,
    ListPermissionRulesResponse, PermissionRuleEntry, PermissionRulesState,
    RegisterRepoRootRequest, RenameSessionRequest, SetCwdRequest, SetModelRequest,
    SetModelResponse, UpdateQueuedMessageRequest, UpdateQueuedMessageResponse, WorkspaceDirectory,
};
use serde_json::Value;

use super::actor::Actor;
use super::control::{Answer, ControlError, answer};
use super::hooks::{self, HookScope};
use super::models::{self, model_switch_input};
use super::services::SessionCore;
use dcl_events::HookEvent;
use dcl_events::hook_input::{DirectoryAdded, PostModelSwitch, PreModelSwitch};

impl Actor {
    /// `rename_session`: a `custom-title` entry in the transcript, as the reference's
    /// `renameSession` writes it (the session list shows the last one).
    pub(super) fn rename_session(&mut self, r: RenameSessionRequest) -> Answer {
        let title = r.title.trim();
        if title.is_empty() {
            return Err(ControlError::RenameTitleEmpty);
        }
        let current = self.core.services.emitter.session_id();
        if let Some(id) = &r.session_id
            && *id != current
        {
            return Err(ControlError::RenameOtherSession {
                id: id.clone(),
                current,
            });
        }
        self.core
            .persistence
            .rename(title)
            .map_err(|e| ControlError::failed("rename_session", e))?;
        answer(EmptyResponse::default())
    }

    /// `generate_session_title`: a short title for the session from the host's description
    /// (what the ACP adapters send once a conversation starts). dcl makes it without a
    /// model call: the description's first line, spaces collapsed, cut at a word before
    /// [`TITLE_CHARS`]. With `persist`, it is stored as the session's custom title, as
    /// `rename_session` stores one. An empty description has no title (`null`).
    pub(super) fn generate_session_title(&mut self, r: GenerateSessionTitleRequest) -> Answer {
        let title = title_of(&r.description);
        if r.persist == Some(true)
            && let Some(title) = &title
        {
            self.core
                .persistence
                .rename(title)
                .map_err(|e| ControlError::failed("generate_session_title", e))?;
        }
        answer(GenerateSessionTitleResponse {
            title,
            extra: Extra::new(),
        })
    }

    /// `update_queued_message`: new content for a prompt still queued behind the running
    /// turn. One that already started (or never was queued) is `not_queued`.
    pub(super) fn update_queued_message(&mut self, r: UpdateQueuedMessageRequest) -> Answer {
        let Some(content) = r.content else {
            return Err(ControlError::QueuedContentMissing);
        };
        if content.clone().into_blocks().is_empty() {
            return Err(ControlError::QueuedContentEmpty);
        }
        let outcome = match self.queue.iter_mut().find(|p| p.uuid == r.message_uuid) {
            Some(p) => {
                p.message.message.content = content;
                "updated"
            }
            None => "not_queued",
        };
        answer(UpdateQueuedMessageResponse {
            outcome: outcome.into(),
            extra: Extra::new(),
        })
    }

    /// `list_permission_rules`: the rules in force, each with its source — the settings
    /// files and `--settings`, `--allowedTools`/`--disallowedTools`, and what hosts
    /// approved for this session — and the directories the session may work in.
    pub(super) fn list_permission_rules(&self) -> Answer {
        let core = &self.core;
        let opts = &core.services.opts;
        let (settings, session) = core
            .state
            .with(|s| (s.settings.clone(), s.session_permissions.clone()));
        let mut rules = Vec::new();
        let mut dirs = Vec::new();
        let entry =
            |behavior: &str, source: &str, rule: &str, editability: &str| PermissionRuleEntry {
                behavior: behavior.into(),
                source: source.into(),
                rule: rule.into(),
                editability: editability.into(),
                extra: Extra::new(),
            };
        for layer in &settings.layers {
            let (source, editability) = match layer.source {
                "user" => ("userSettings", "persistent"),
                "project" => ("projectSettings", "persistent"),
                "local" => ("localSettings", "persistent"),
                // `--managed-settings` / `initialize.managedSettings`: the policy layer.
                "managed" => ("policySettings", "readonly"),
                _ => ("flagSettings", "readonly"),
            };
            let Some(perms) = layer.settings.get("permissions").and_then(Value::as_object) else {
                continue;
            };
            for behavior in ["allow", "deny", "ask"] {
                for rule in strings(perms.get(behavior)) {
                    rules.push(entry(behavior, source, rule, editability));
                }
            }
            for d in strings(perms.get("additionalDirectories")) {
                dirs.push(WorkspaceDirectory {
                    path: core.services.cwd.join(d).display().to_string(),
                    source: source.into(),
                    extra: Extra::new(),
                });
            }
        }
        for rule in &opts.allowed_tools {
            rules.push(entry("allow", "cliArg", rule, "session"));
        }
        for rule in &opts.disallowed_tools {
            rules.push(entry("deny", "cliArg", rule, "session"));
        }
        for (behavior, list) in [
            ("allow", &session.allow),
            ("deny", &session.deny),
            ("ask", &session.ask),
        ] {
            for rule in list {
                rules.push(entry(behavior, "session", rule, "session"));
            }
        }
        let listed = |p: PathBuf, source: &str| WorkspaceDirectory {
            path: p.display().to_string(),
            source: source.into(),
            extra: Extra::new(),
        };
        dirs.extend(opts.add_dirs.iter().cloned().map(|p| listed(p, "cliArg")));
        dirs.extend(
            session
                .directories
                .iter()
                .cloned()
                .map(|p| listed(p, "session")),
        );
        answer(ListPermissionRulesResponse {
            state: PermissionRulesState {
                rules,
                workspace_directories: dirs,
                original_cwd: core.services.cwd.display().to_string(),
                managed_only: false,
                extra: Extra::new(),
            },
            extra: Extra::new(),
        })
    }

    /// `set_cwd`: refused. A dcl session's directory decides its project settings, memory
    /// files, MCP servers and trust when it opens; moving only part of that would leave a
    /// session that is neither here nor there. (Bash's own `cd` persists between calls.)
    pub(super) fn set_cwd(&self, r: SetCwdRequest) -> Answer {
        Err(ControlError::SetCwdUnsupported(r.path))
    }

    /// `register_repo_root`: another directory the session's tools may work in (as an
    /// `addDirectories` permission update would), then DirectoryAdded hooks. Reloading
    /// memory files, plugins or skills with it is refused before anything changes.
    pub(super) fn register_repo_root(&mut self, request_id: String, r: RegisterRepoRootRequest) {
        let refused = [
            ("reload_claude_md", r.reload_claude_md),
            ("reload_plugins", r.reload_plugins),
            ("reload_skills", r.reload_skills),
        ]
        .into_iter()
        .find(|(_, v)| *v == Some(true))
        .map(|(k, _)| k);
        self.answer_later(request_id, async move |core: Arc<SessionCore>| {
            if let Some(k) = refused {
                return Err(ControlError::RepoRootReloadUnsupported(k));
            }
            let dir = core.services.cwd.join(&r.directory);
            if !dir.is_dir() {
                return Err(ControlError::RepoRootNotADirectory(dir));
            }
            let added = core.state.with(|s| {
                let dirs = &mut s.session_permissions.directories;
                let new = !dirs.contains(&dir);
                if new {
                    dirs.push(dir.clone());
                }
                new
            });
            if added {
                let added = DirectoryAdded {
                    directory: dir.display().to_string(),
                    source: "register_repo_root".into(),
                };
                hooks::fire(&HookScope::session(&core), &added).await;
            }
            answer(EmptyResponse::default())
        });
    }

    /// `set_model`. With PreModelSwitch/PostModelSwitch hooks registered, the switch waits
    /// for them (a `deny` — or an `ask`, which a headless session cannot put to anyone —
    /// refuses it) and is answered from a task; without, it is answered at once. `None`:
    /// the answer comes later.
    pub(super) fn set_model(&mut self, request_id: String, r: SetModelRequest) -> Option<Answer> {
        let core = self.core.clone();
        let resolved =
            models::resolve_alias(r.model.as_deref(), core.services.clients.default_model());
        let running = self.turn_running();
        let from = core.state.with(|s| {
            s.live
                .pending_model
                .clone()
                .unwrap_or_else(|| s.live.model.clone())
        });
        let hooked = from != resolved
            && (hooks::any_for(&core, PreModelSwitch::NAME)
                || hooks::any_for(&core, PostModelSwitch::NAME));
        if !hooked {
            apply_model(&core, running, &resolved);
            return Some(answer(SetModelResponse {
                model: resolved,
                extra: Extra::new(),
            }));
        }
        self.answer_later(request_id, async move |core: Arc<SessionCore>| {
            let switch = model_switch_input(&core, &from, &resolved, r.model.as_deref(), "sdk");
            let scope = HookScope::session(&core);
            let v = hooks::fire(&scope, &PreModelSwitch(switch.clone())).await;
            let refused = match v.permission.as_deref() {
                Some("deny") | Some("ask") => Some(
                    v.permission_reason
                        .clone()
                        .unwrap_or_else(|| "no reason given".into()),
                ),
                _ => v.stop.clone().or(v.block.clone()),
            };
            if let Some(reason) = refused {
                return Err(ControlError::ModelSwitchRefused {
                    model: resolved,
                    reason,
                });
            }
            // The turn running when the request came may have ended while the hooks ran
            // (its end applies pending changes): a running turn holds the conversation.
            let running = core.conversation.try_lock().is_err();
            apply_model(&core, running, &resolved);
            let v = hooks::fire(&scope, &PostModelSwitch(switch)).await;
            // "Reaches the model with the next request the new model serves."
            if !v.additional_context.is_empty() {
                core.state.with(|s| {
                    s.pending_context
                        .extend(v.additional_context.into_iter().map(ContentBlock::text))
                });
            }
            answer(SetModelResponse {
                model: resolved,
                extra: Extra::new(),
            })
        });
        None
    }
}

fn strings(v: Option<&Value>) -> impl Iterator<Item = &str> {
    v.and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
}

/// A model change a host asked for: during a turn it waits for the turn's end.
fn apply_model(core: &SessionCore, running: bool, model: &str) {
    core.state.with(|s| {
        if running {
            s.live.pending_model = Some(model.to_string());
        } else {
            s.live.model = model.to_string();
        }
    });
}

/// The longest title [`Actor::generate_session_title`] makes, in characters.
pub(crate) const TITLE_CHARS: usize = 60;

/// The title of a description: its first non-empty line, spaces collapsed, cut at the
/// last word boundary within [`TITLE_CHARS`] (a longer single word is cut as is).
pub(crate) fn title_of(description: &str) -> Option<String> {
    let line = description.lines().map(str::trim).find(|l| !l.is_empty())?;
    let words: Vec<&str> = line.split_whitespace().collect();
    let mut title = String::new();
    for word in words {
        let len = title.chars().count() + usize::from(!title.is_empty()) + word.chars().count();
        if len > TITLE_CHARS {
            if title.is_empty() {
                title = word.chars().take(TITLE_CHARS).collect();
            }
            break;
        }
        if !title.is_empty() {
            title.push(' ');
        }
        title.push_str(word);
    }
    Some(title)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_title_is_the_first_line_cut_at_a_word() {
        assert_eq!(
            title_of("\n  Fix the   parser crash\nwith details").as_deref(),
            Some("Fix the parser crash")
        );
        let long = "word ".repeat(40);
        let t = title_of(&long).expect("title");
        assert!(t.chars().count() <= TITLE_CHARS, "{t}");
        assert!(t.ends_with("word"), "{t}");
        let one = "x".repeat(100);
        assert_eq!(title_of(&one).map(|t| t.len()), Some(TITLE_CHARS));
        assert_eq!(title_of("  \n \n"), None);
    }
}
