//! Control requests of the newest SDKs (Claude TS 0.3.x), each in its own handler, and the
//! hook moments that happen outside any turn: the session's end, a model switch a host
//! asked for, background agents starting and finishing, an MCP server's elicitation.

use std::path::PathBuf;
use std::sync::Arc;

use dcl_protocol::{
    ContentBlock, ElicitationResponse, EmptyResponse, Extra, ListPermissionRulesResponse,
    PermissionRuleEntry, PermissionRulesState, RegisterRepoRootRequest, RenameSessionRequest,
    SetCwdRequest, SetModelRequest, SetModelResponse, UpdateQueuedMessageRequest,
    UpdateQueuedMessageResponse, WorkspaceDirectory,
};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use super::actor::Actor;
use super::control::{Answer, ControlError, answer};
use super::hooks;
use super::mcp::ElicitError;
use super::models;
use super::services::SessionCore;

/// How long SessionEnd hooks may take: the session is over, so a hook (or a host that is
/// gone and will never answer its callback) must not hold the process open for long.
const SESSION_END_GRACE: std::time::Duration = std::time::Duration::from_secs(5);

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
                let mut input = Map::new();
                input.insert("directory".into(), json!(dir.display().to_string()));
                input.insert("source".into(), json!("register_repo_root"));
                hooks::run_outside(&core, "DirectoryAdded", input).await;
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
            && (hooks::any_for(&core, "PreModelSwitch")
                || hooks::any_for(&core, "PostModelSwitch"));
        if !hooked {
            apply_model(&core, running, &resolved);
            return Some(answer(SetModelResponse {
                model: resolved,
                extra: Extra::new(),
            }));
        }
        self.answer_later(request_id, async move |core: Arc<SessionCore>| {
            let input = model_switch_input(&core, &from, &resolved, r.model.as_deref(), "sdk");
            let v = hooks::run_outside(&core, "PreModelSwitch", input.clone()).await;
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
            let v = hooks::run_outside(&core, "PostModelSwitch", input).await;
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

/// PreModelSwitch/PostModelSwitch input. dcl keeps no record of the prompt cache, so
/// `prompt_cache_warm` is false and `estimated_cache_write_usd` prices the whole context
/// as a cache write at the new model's rate (`pricing`: `catalog` when dcl's price table
/// lists it, else `default`, counted as free).
pub(crate) fn model_switch_input(
    core: &SessionCore,
    from: &str,
    to: &str,
    requested: Option<&str>,
    source: &str,
) -> Map<String, Value> {
    // The mock counts a quarter of the characters; the request size is in bytes.
    let context_tokens = core
        .conversation_size
        .load(std::sync::atomic::Ordering::Relaxed) as u64
        / 4;
    let price = models::price_per_mtok(to);
    let write_usd = price.map_or(0.0, |(_, _, _, write)| {
        context_tokens as f64 * write / 1_000_000.0
    });
    let mut m = Map::new();
    m.insert("from_model".into(), json!(from));
    m.insert("to_model".into(), json!(to));
    m.insert("requested_model".into(), json!(requested));
    m.insert("source".into(), json!(source));
    m.insert("context_tokens".into(), json!(context_tokens));
    m.insert("prompt_cache_warm".into(), json!(false));
    m.insert("cache_ttl".into(), json!("5m"));
    m.insert("estimated_cache_write_usd".into(), json!(write_usd));
    m.insert(
        "pricing".into(),
        json!(if price.is_some() {
            "catalog"
        } else {
            "default"
        }),
    );
    m
}

/// SessionEnd: the host's input ended (`prompt_input_exit`) or the session was closed
/// (`other`), after every turn and answer is done. Bounded by [`SESSION_END_GRACE`]. A
/// callback hook cannot be answered once the host's input is closed, so in practice
/// SessionEnd is for settings command hooks.
pub(super) async fn session_end(core: &Arc<SessionCore>, reason: &str) {
    if !hooks::any_for(core, "SessionEnd") {
        return;
    }
    let cancel = CancellationToken::new();
    let mut input = Map::new();
    input.insert("reason".into(), json!(reason));
    let ctx = super::turn::TurnContext::main(core.clone(), String::new(), cancel.clone());
    let run = hooks::run(&ctx, "SessionEnd", None, None, input);
    tokio::pin!(run);
    tokio::select! {
        _ = &mut run => {}
        _ = tokio::time::sleep(SESSION_END_GRACE) => {
            // Cancelled hooks are killed and reported as cancelled, not left running.
            cancel.cancel();
            run.await;
        }
    }
}

/// How long after a turn's result, with nothing queued, the host counts as idle: the
/// reference's 60 s, or `DCL_IDLE_NOTIFICATION_MS`.
const IDLE_AFTER: std::time::Duration = std::time::Duration::from_secs(60);

/// When an `idle_prompt` Notification is due, counted from now; `None` when no
/// Notification hook would hear it (the timer is not even armed).
pub(super) fn idle_deadline(core: &SessionCore) -> Option<tokio::time::Instant> {
    if !hooks::any_for(core, "Notification") {
        return None;
    }
    let after = core
        .services
        .env
        .get("DCL_IDLE_NOTIFICATION_MS")
        .and_then(|v| v.parse::<u64>().ok())
        .map_or(IDLE_AFTER, std::time::Duration::from_millis);
    Some(tokio::time::Instant::now() + after)
}

/// Notification (`idle_prompt`): the last turn ended a while ago and no prompt came since;
/// worded as the reference words it. Once per idle spell.
pub(super) async fn idle_notification(core: &Arc<SessionCore>) {
    let mut input = Map::new();
    input.insert("message".into(), json!("Claude is waiting for your input"));
    input.insert("notification_type".into(), json!("idle_prompt"));
    hooks::run_outside(core, "Notification", input).await;
}

/// TaskCreated / TaskCompleted for a background agent: `task_subject` is the agent call's
/// description, `task_description` its prompt.
pub(crate) async fn task_hook(
    core: &Arc<SessionCore>,
    event: &str,
    task_id: &str,
    subject: &str,
    description: &str,
) {
    let mut input = Map::new();
    input.insert("task_id".into(), json!(task_id));
    input.insert("task_subject".into(), json!(subject));
    input.insert("task_description".into(), json!(description));
    hooks::run_outside(core, event, input).await;
}

/// TaskCreated / TaskCompleted for background shells (`run_in_background`): `task_subject`
/// is the command. Completed means it exited 0 by itself; a failing or killed shell fires
/// no TaskCompleted. Weak: the shells belong to the session.
pub(crate) struct ShellTaskHooks(pub std::sync::Weak<SessionCore>);

impl crate::tools::background::ShellListener for ShellTaskHooks {
    fn started<'a>(&'a self, id: &'a str, command: &'a str) -> crate::model::BoxFuture<'a, ()> {
        Box::pin(async move {
            if let Some(core) = self.0.upgrade() {
                task_hook(&core, "TaskCreated", id, command, command).await;
            }
        })
    }

    fn exited<'a>(
        &'a self,
        id: &'a str,
        command: &'a str,
        code: i32,
    ) -> crate::model::BoxFuture<'a, ()> {
        Box::pin(async move {
            if code == 0
                && let Some(core) = self.0.upgrade()
            {
                task_hook(&core, "TaskCompleted", id, command, command).await;
            }
        })
    }
}

/// An MCP server's elicitation: Elicitation hooks may answer it themselves (`action`,
/// `content`); otherwise a Notification (`elicitation_dialog`) goes out and the host is
/// asked. ElicitationResult hooks then see the answer and may change it.
pub(crate) async fn elicit(
    core: &Arc<SessionCore>,
    server: &str,
    request: &Value,
    ask_host: impl std::future::Future<Output = Result<Value, ElicitError>>,
) -> Result<Value, ElicitError> {
    let text = |key: &str| request.get(key).and_then(Value::as_str).map(str::to_string);
    let mut input = Map::new();
    input.insert("mcp_server_name".into(), json!(server));
    input.insert("message".into(), json!(text("message").unwrap_or_default()));
    for key in ["mode", "url", "elicitation_id"] {
        if let Some(v) = text(key) {
            input.insert(key.into(), json!(v));
        }
    }
    if let Some(schema) = request.get("requested_schema").filter(|v| !v.is_null()) {
        input.insert("requested_schema".into(), schema.clone());
    }
    let v = hooks::run_outside(core, "Elicitation", input).await;
    let mut answer = match v.elicitation_action {
        Some(action) => elicitation_answer(&action, v.elicitation_content)?,
        None => {
            let mut note = Map::new();
            note.insert(
                "message".into(),
                json!(format!(
                    "MCP server {server} asks: {}",
                    text("message").unwrap_or_default()
                )),
            );
            note.insert("title".into(), json!(server));
            note.insert("notification_type".into(), json!("elicitation_dialog"));
            hooks::run_outside(core, "Notification", note).await;
            ask_host.await?
        }
    };
    let mut result = Map::new();
    result.insert("mcp_server_name".into(), json!(server));
    for key in ["mode", "elicitation_id"] {
        if let Some(v) = text(key) {
            result.insert(key.into(), json!(v));
        }
    }
    result.insert(
        "action".into(),
        answer.get("action").cloned().unwrap_or(json!("cancel")),
    );
    if let Some(c) = answer.get("content").filter(|c| c.is_object()) {
        result.insert("content".into(), c.clone());
    }
    let v = hooks::run_outside(core, "ElicitationResult", result).await;
    if let Some(action) = v.elicitation_action {
        answer = elicitation_answer(&action, v.elicitation_content)?;
    }
    Ok(answer)
}

/// A hook's elicitation answer in the shape the host's would have.
fn elicitation_answer(action: &str, content: Option<Value>) -> Result<Value, ElicitError> {
    let mut a = json!({"action": action});
    if let Some(c) = content.filter(|_| action == "accept") {
        a["content"] = c;
    }
    let typed: ElicitationResponse = serde_json::from_value(a).map_err(ElicitError::HookAnswer)?;
    serde_json::to_value(typed).map_err(ElicitError::Serialize)
}
