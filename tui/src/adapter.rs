//! The UI as a projection of the engine's typed event stream: [`AgentEvent`]s become the
//! UI's own [`UiEvent`]s, and the UI's answers and requests become [`SessionCommand`]s.
//! No wire format is read here: the session is opened for events only.

use std::collections::{BTreeMap, HashMap, HashSet};

use dcl_bridge::events::{
    AgentEvent, ContentBlock, HostRequest, ItemBody, ItemDelta, PermissionDecision,
    PermissionRequest, SessionCommand, StopReason, ToolStatus,
};
use dcl_bridge::{Bridge, SessionOptions, Streams};
use futures::FutureExt;
use serde_json::{Value, json};

use crate::error::TuiError;
use crate::view::{
    AskKind, FileChange, Notice, NoticeLevel, PermissionAnswer, PermissionAsk, Question,
    SessionInfo, ToolCall, TurnEnd, UiEvent,
};

/// The request subtype the engine asks a project's `.mcp.json` servers' approval with.
const MCP_APPROVAL: &str = "mcp_server_approval";

/// What an open question needs to be answered.
#[derive(Debug, Clone)]
enum Open {
    /// A tool call: its input and the rule "don't ask again" adds.
    Permission {
        input: Value,
        always: Value,
    },
    Question,
    McpApproval {
        server: String,
    },
}

/// What the user decided about a project MCP server, to be remembered in the settings.
#[derive(Debug, Clone, PartialEq)]
pub struct McpChoice {
    pub server: String,
    pub choice: crate::mcp_settings::Choice,
}

/// Turns events into UI events and answers into commands. Pure: no I/O, so it is tested
/// on events alone.
#[derive(Debug, Default)]
pub struct Projector {
    open: HashMap<String, Open>,
    /// A subagent's text and thinking items: its deltas name no scope, so they are told
    /// apart by id (they stay inside its call).
    subagent_text: HashSet<String>,
    /// Text and thinking items that arrived as deltas: their completion repeats the text,
    /// which is not shown again.
    streamed: HashSet<String>,
    /// Answers owed to requests this terminal cannot serve: sent at once, so the session
    /// never waits for its host timeout.
    refusals: Vec<SessionCommand>,
}

impl Projector {
    /// The answers owed to requests this terminal cannot serve, to send now.
    pub fn take_refusals(&mut self) -> Vec<SessionCommand> {
        std::mem::take(&mut self.refusals)
    }

    pub fn event(&mut self, event: AgentEvent) -> Vec<UiEvent> {
        match event {
            AgentEvent::SessionStarted(info) => vec![UiEvent::SessionInfo(SessionInfo {
                session_id: info.session_id,
                model: info.model,
                permission_mode: info.permission_mode,
                slash_commands: info.slash_commands,
            })],
            AgentEvent::SessionConfigured {
                model,
                permission_mode,
            } => {
                let mut out = Vec::new();
                if let Some(m) = model {
                    out.push(UiEvent::ModelChanged(m));
                }
                if let Some(m) = permission_mode {
                    out.push(UiEvent::ModeChanged(m));
                }
                out
            }
            AgentEvent::TurnStarted { .. } => vec![UiEvent::Requesting],
            AgentEvent::ItemStarted { item } => match item.body {
                ItemBody::ToolCall(call) => vec![UiEvent::ToolStarted(tool_call(
                    &item.id,
                    &call,
                    item.parent_tool_call_id,
                ))],
                ItemBody::AgentText { .. } | ItemBody::Thinking { .. }
                    if item.parent_tool_call_id.is_some() =>
                {
                    self.subagent_text.insert(item.id);
                    Vec::new()
                }
                _ => Vec::new(),
            },
            // A subagent's own text stays inside its call; its tool calls are shown.
            AgentEvent::ItemDelta { ref item_id, .. } if self.subagent_text.contains(item_id) => {
                Vec::new()
            }
            AgentEvent::ItemCompleted { ref item } if is_subagent_text(item) => {
                self.subagent_text.remove(&item.id);
                Vec::new()
            }
            AgentEvent::ItemDelta { item_id, delta } => match delta {
                ItemDelta::Text { text } => {
                    self.streamed.insert(item_id);
                    vec![UiEvent::TextDelta(text)]
                }
                ItemDelta::Thinking { text } => {
                    self.streamed.insert(item_id);
                    vec![UiEvent::ThinkingDelta(text)]
                }
                _ => Vec::new(),
            },
            AgentEvent::ItemCompleted { item } => {
                let streamed = self.streamed.remove(&item.id);
                match item.body {
                    ItemBody::AgentText { .. } | ItemBody::Thinking { .. } if streamed => {
                        vec![UiEvent::BlockEnded]
                    }
                    ItemBody::AgentText { text } => vec![UiEvent::AssistantText(text)],
                    ItemBody::Thinking { .. } => Vec::new(),
                    ItemBody::ToolCall(call) => vec![UiEvent::ToolFinished {
                        id: item.id,
                        is_error: call.status == ToolStatus::Failed,
                        output: ContentBlock::joined_text(&call.content),
                    }],
                    // The terminal shows its own prompts as they are sent.
                    ItemBody::UserMessage { .. } | ItemBody::HookRun(_) => Vec::new(),
                }
            }
            AgentEvent::Request(request) => self.request(request),
            AgentEvent::RequestWithdrawn { request_id } => {
                self.open.remove(&request_id);
                vec![UiEvent::PermissionWithdrawn(request_id)]
            }
            AgentEvent::ContextUsage {
                used_tokens,
                context_window,
            } => vec![UiEvent::Context {
                used_tokens,
                window: context_window,
            }],
            // The turn's end carries its totals.
            AgentEvent::Usage { .. } => Vec::new(),
            AgentEvent::Notice { level, message } => vec![UiEvent::Notice(Notice {
                level: match level {
                    dcl_bridge::events::NoticeLevel::Info => NoticeLevel::Info,
                    dcl_bridge::events::NoticeLevel::Warning => NoticeLevel::Warning,
                    dcl_bridge::events::NoticeLevel::Error => NoticeLevel::Error,
                },
                text: message,
            })],
            AgentEvent::TurnEnded(end) => {
                self.streamed.clear();
                self.subagent_text.clear();
                let error = (end.stop_reason == StopReason::Error).then(|| {
                    if end.errors.is_empty() {
                        end.result
                            .clone()
                            .unwrap_or_else(|| "the turn failed".into())
                    } else {
                        end.errors.join("; ")
                    }
                });
                vec![UiEvent::TurnEnded(TurnEnd {
                    input_tokens: end.usage.input_tokens,
                    output_tokens: end.usage.output_tokens,
                    cost_usd: end.total_cost_usd,
                    duration_ms: end.duration_ms,
                    interrupted: end.stop_reason == StopReason::Cancelled,
                    error,
                })]
            }
            AgentEvent::SessionEnded => vec![UiEvent::Ended],
            AgentEvent::PlanUpdated { .. } => Vec::new(),
        }
    }

    fn request(&mut self, request: HostRequest) -> Vec<UiEvent> {
        match request {
            HostRequest::Permission(p) => vec![self.permission(p)],
            HostRequest::Question {
                request_id,
                questions,
                ..
            } => {
                self.open.insert(request_id.clone(), Open::Question);
                vec![UiEvent::Permission(PermissionAsk {
                    id: request_id,
                    tool: "AskUserQuestion".into(),
                    summary: String::new(),
                    rule: None,
                    diff: None,
                    kind: AskKind::Questions(questions_of(&questions)),
                })]
            }
            HostRequest::Other {
                request_id,
                subtype,
                request,
            } if subtype == MCP_APPROVAL => {
                let server = str_at(&request, "server_name").to_string();
                self.open.insert(
                    request_id.clone(),
                    Open::McpApproval {
                        server: server.clone(),
                    },
                );
                let command = first_line(&server_command(&request["config"]), 200);
                vec![UiEvent::Permission(PermissionAsk {
                    id: request_id,
                    tool: server.clone(),
                    summary: command.clone(),
                    rule: None,
                    diff: None,
                    kind: AskKind::McpServer { server, command },
                })]
            }
            HostRequest::Elicitation {
                request_id, server, ..
            } => {
                self.refusals.push(SessionCommand::AnswerElicitation {
                    request_id,
                    action: dcl_bridge::events::ElicitationAction::Decline,
                    content: None,
                });
                vec![UiEvent::Notice(Notice::warning(format!(
                    "the MCP server `{server}` asked for input, which this terminal does not \
                     answer yet: declined"
                )))]
            }
            HostRequest::HookCallback { request_id, .. }
            | HostRequest::Other { request_id, .. } => {
                self.refusals.push(SessionCommand::Answer {
                    request_id,
                    result: Value::Null,
                    error: Some("the terminal does not serve this request".into()),
                });
                vec![UiEvent::Notice(Notice::warning(
                    "the session asked something this terminal does not answer: refused",
                ))]
            }
        }
    }

    fn permission(&mut self, p: PermissionRequest) -> UiEvent {
        let tool = p.tool_call.name.clone();
        let input = p.tool_call.raw_input.clone();
        let suggested = p
            .suggestions
            .as_ref()
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .find(|s| str_at(s, "type") == "addRules")
            .cloned();
        // Without a suggestion, "don't ask again" allows the tool as a whole in this
        // project (the reference's local settings).
        let always = suggested.unwrap_or_else(|| {
            json!({"type": "addRules", "rules": [{"toolName": tool}],
                   "behavior": "allow", "destination": "localSettings"})
        });
        let rule = always["rules"].get(0).map(|r| {
            let name = str_at(r, "toolName");
            match r.get("ruleContent").and_then(Value::as_str) {
                Some(c) => format!("{name}({c})"),
                None => name.to_string(),
            }
        });
        let call = tool_call(&p.tool_call_id, &p.tool_call, None);
        let kind = match tool.as_str() {
            "ExitPlanMode" => AskKind::Plan(str_at(&input, "plan").to_string()),
            _ => AskKind::Tool,
        };
        self.open
            .insert(p.request_id.clone(), Open::Permission { input, always });
        UiEvent::Permission(PermissionAsk {
            id: p.request_id,
            tool,
            summary: call.summary,
            rule,
            diff: call.diff,
            kind,
        })
    }

    /// A resumed session's earlier conversation: its prompts shown as prompts.
    pub fn history(&mut self, events: Vec<AgentEvent>) -> Vec<UiEvent> {
        let mut out = Vec::new();
        for e in events {
            match e {
                AgentEvent::ItemCompleted { item } => match item.body {
                    ItemBody::UserMessage { content } if item.parent_tool_call_id.is_none() => {
                        out.push(UiEvent::UserPrompt(ContentBlock::joined_text(&content)))
                    }
                    body => out.extend(self.event(AgentEvent::ItemCompleted {
                        item: dcl_bridge::events::Item { body, ..item },
                    })),
                },
                other => out.extend(self.event(other)),
            }
        }
        out
    }

    /// The command answering question `id`, and what to remember of it; `None` when no
    /// such question is open.
    pub fn answer(
        &mut self,
        id: &str,
        answer: &PermissionAnswer,
    ) -> Option<(SessionCommand, Option<McpChoice>)> {
        use crate::mcp_settings::Choice;
        let open = self.open.remove(id)?;
        let request_id = id.to_string();
        let command = match (open, answer) {
            (Open::McpApproval { server }, answer) => {
                let choice = match answer {
                    PermissionAnswer::Allow => Choice::Enable,
                    PermissionAnswer::AllowAlways => Choice::EnableAll,
                    _ => Choice::Disable,
                };
                let command = SessionCommand::Answer {
                    request_id,
                    result: json!({"approved": choice != Choice::Disable}),
                    error: None,
                };
                return Some((command, Some(McpChoice { server, choice })));
            }
            (Open::Question, PermissionAnswer::Answers(pairs)) => SessionCommand::AnswerQuestion {
                request_id,
                answers: pairs.iter().cloned().collect::<BTreeMap<_, _>>(),
            },
            (Open::Permission { input, .. }, PermissionAnswer::Allow) => {
                allow(request_id, input, None)
            }
            (Open::Permission { input, always }, PermissionAnswer::AllowAlways) => {
                allow(request_id, input, Some(Value::Array(vec![always])))
            }
            (_, PermissionAnswer::Deny(text)) => SessionCommand::AnswerPermission {
                request_id,
                decision: deny(text),
            },
            // A question answered as a tool call, or the reverse: the UI's mistake; the
            // request is refused rather than answered with something it did not ask.
            (Open::Question, _) | (Open::Permission { .. }, PermissionAnswer::Answers(_)) => {
                SessionCommand::AnswerPermission {
                    request_id,
                    decision: deny(""),
                }
            }
        };
        Some((command, None))
    }
}

/// How a server is run (its command line, or its URL), for the user to judge.
fn server_command(config: &Value) -> String {
    let args = config["args"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str);
    match (str_at(config, "command"), str_at(config, "url")) {
        ("", "") => String::new(),
        ("", url) => url.to_string(),
        (command, _) => std::iter::once(command)
            .chain(args)
            .collect::<Vec<_>>()
            .join(" "),
    }
}

fn allow(request_id: String, input: Value, rules: Option<Value>) -> SessionCommand {
    SessionCommand::AnswerPermission {
        request_id,
        decision: PermissionDecision::Allow {
            updated_input: Some(input),
            updated_permissions: rules,
        },
    }
}

/// A plain "no" stops the turn so the user can say what to do instead; with
/// instructions the model reads them and goes on.
fn deny(text: &str) -> PermissionDecision {
    if text.trim().is_empty() {
        PermissionDecision::Deny {
            message:
                "The user doesn't want to proceed with this tool use. The tool use was rejected."
                    .into(),
            interrupt: true,
            updated_permissions: None,
        }
    } else {
        PermissionDecision::Deny {
            message: format!(
                "The user doesn't want to proceed with this tool use. The user said: {text}"
            ),
            interrupt: false,
            updated_permissions: None,
        }
    }
}

/// A subagent's text and thinking (its tool calls are shown, nested under its call).
fn is_subagent_text(item: &dcl_bridge::events::Item) -> bool {
    item.parent_tool_call_id.is_some()
        && matches!(
            item.body,
            ItemBody::AgentText { .. } | ItemBody::Thinking { .. }
        )
}

/// The questions of an `AskUserQuestion` call.
fn questions_of(questions: &Value) -> Vec<Question> {
    questions
        .as_array()
        .into_iter()
        .flatten()
        .map(|q| Question {
            header: str_at(q, "header").to_string(),
            question: str_at(q, "question").to_string(),
            options: q["options"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|o| {
                    (
                        str_at(o, "label").to_string(),
                        str_at(o, "description").to_string(),
                    )
                })
                .collect(),
        })
        .collect()
}

/// One line describing a call: the argument a person recognises it by.
fn tool_call(id: &str, call: &dcl_bridge::events::ToolCall, parent: Option<String>) -> ToolCall {
    let input = &call.raw_input;
    let pick = |keys: &[&str]| {
        keys.iter()
            .find_map(|k| input.get(*k).and_then(Value::as_str))
            .map(str::to_string)
    };
    let summary = match call.name.as_str() {
        "Bash" => pick(&["command"]),
        "Read" | "Write" | "Edit" | "MultiEdit" | "NotebookEdit" => {
            pick(&["file_path", "notebook_path"])
        }
        "Glob" | "Grep" => pick(&["pattern"]),
        "WebFetch" => pick(&["url"]),
        "WebSearch" => pick(&["query"]),
        "Task" | "Agent" => pick(&["description"]),
        _ => None,
    }
    .unwrap_or_else(|| match input {
        Value::Object(o) if o.is_empty() => String::new(),
        Value::Null => String::new(),
        other => other.to_string(),
    });
    ToolCall {
        id: id.to_string(),
        name: call.name.clone(),
        summary: first_line(&summary, 200),
        diff: file_change(call),
        parent,
    }
}

/// The change an edit or write makes. A write's "before" is the file as it is now: the
/// call is shown before it runs.
fn file_change(call: &dcl_bridge::events::ToolCall) -> Option<FileChange> {
    if !matches!(call.name.as_str(), "Edit" | "Write") {
        return None;
    }
    let d = call.diff.first()?;
    Some(FileChange {
        path: d.path.clone(),
        before: match &d.old_text {
            Some(t) => t.clone(),
            None => read_small_text(&d.path),
        },
        after: d.new_text.clone(),
    })
}

/// A file's text when it is small and text; empty otherwise (a new file, a binary).
fn read_small_text(path: &str) -> String {
    const LIMIT: u64 = 256 * 1024;
    match std::fs::metadata(path) {
        Ok(m) if m.len() <= LIMIT => std::fs::read_to_string(path).unwrap_or_default(),
        _ => String::new(),
    }
}

fn str_at<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn first_line(s: &str, max: usize) -> String {
    let line = s.lines().next().unwrap_or("");
    let more = s.lines().nth(1).is_some();
    let t = truncate(line, max);
    if more && t.len() == line.len() {
        format!("{t} …")
    } else {
        t
    }
}

pub fn truncate(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// The session, seen through the view-model.
pub struct Link {
    bridge: Bridge,
    projector: Projector,
    /// The project's local settings file, where MCP server approvals are remembered.
    local_settings: std::path::PathBuf,
}

/// Events read per wake-up at most: a burst is drawn once, not once per event.
const BATCH: usize = 256;

impl Link {
    /// Opens the session the terminal talks to: typed events out, commands in, questions
    /// asked of this terminal.
    pub fn open(
        mut opts: SessionOptions,
        local_settings: std::path::PathBuf,
    ) -> Result<Link, TuiError> {
        // A session asks its host only when it has one (stream-json's, or a front end on
        // its events): no lines are written either way.
        opts.output_format = Some(dcl_bridge::options::OutputFormat::StreamJson);
        opts.non_interactive = false;
        // Esc Esc puts files back as they were before an earlier prompt.
        opts.enable_file_checkpointing = true;
        let bridge = dcl_bridge::open_streams(opts, Streams::EVENTS)?;
        Ok(Link {
            bridge,
            projector: Projector::default(),
            local_settings,
        })
    }

    pub fn session_id(&self) -> String {
        self.bridge.session_id()
    }

    /// The earlier conversation of a resumed session.
    pub fn history(&mut self) -> Vec<UiEvent> {
        let events = self.bridge.history();
        self.projector.history(events)
    }

    fn command(&self, command: SessionCommand) -> Result<(), TuiError> {
        Ok(self.bridge.command(command)?)
    }

    pub fn prompt(&self, text: &str, uuid: &str) -> Result<(), TuiError> {
        self.command(SessionCommand::Prompt {
            content: vec![ContentBlock::text(text)],
            id: Some(uuid.to_string()),
        })
    }

    /// The conversation and the files go back to before the prompt `uuid`.
    pub fn rewind(&mut self, uuid: &str) -> Result<(), TuiError> {
        self.command(SessionCommand::Rewind {
            user_message_id: uuid.to_string(),
            files_only: false,
            dry_run: false,
        })
    }

    pub fn interrupt(&self) {
        self.bridge.interrupt();
    }

    pub fn set_mode(&mut self, mode: &str) -> Result<(), TuiError> {
        self.command(SessionCommand::SetMode {
            mode: mode.to_string(),
        })
    }

    pub fn set_model(&mut self, model: &str) -> Result<(), TuiError> {
        self.command(SessionCommand::SetModel {
            model: Some(model.to_string()),
        })
    }

    /// Answers question `id`; an MCP server's approval is also remembered in the
    /// project's local settings (the answer goes to the session either way; a failed
    /// write is said, and the next start asks again).
    pub fn answer(
        &mut self,
        id: &str,
        answer: &PermissionAnswer,
    ) -> Result<Option<Notice>, TuiError> {
        let Some((command, remember)) = self.projector.answer(id, answer) else {
            return Ok(None);
        };
        self.command(command)?;
        let Some(m) = remember else {
            return Ok(None);
        };
        Ok(Some(
            match crate::mcp_settings::record(&self.local_settings, &m.server, m.choice) {
                Ok(()) => Notice::info(m.choice.said(&m.server, &self.local_settings)),
                Err(e) => Notice::warning(format!(
                    "cannot remember the answer in {}: {e}",
                    self.local_settings.display()
                )),
            },
        ))
    }

    /// The next events; `[UiEvent::Ended]` once the session is over. Cancel-safe: the
    /// event stream loses nothing to a dropped wait.
    pub async fn next(&mut self) -> Vec<UiEvent> {
        let Some(first) = self.bridge.recv_event().await else {
            return vec![UiEvent::Ended];
        };
        let mut events = self.projector.event(first);
        for _ in 1..BATCH {
            match self.bridge.recv_event().now_or_never() {
                Some(Some(e)) => events.extend(self.projector.event(e)),
                Some(None) => {
                    events.push(UiEvent::Ended);
                    break;
                }
                None => break,
            }
        }
        for refusal in self.projector.take_refusals() {
            // A command fails only once the session is gone, and then nobody waits for it.
            let _ = self.bridge.command(refusal);
        }
        events
    }

    pub fn close(&self) {
        self.bridge.close();
    }
}
