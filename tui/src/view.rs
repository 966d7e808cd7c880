//! The UI's own view-model: what the screen shows, independent of how the session reports
//! it. Only `adapter` knows the session's events; everything else reads these.

/// One thing that happened in the session, as the screen needs it.
#[derive(Debug, Clone, PartialEq)]
pub enum UiEvent {
    /// The session said who it is (model, mode, commands it offers).
    SessionInfo(SessionInfo),
    /// The model is being asked (a turn or a step of it started).
    Requesting,
    TextDelta(String),
    ThinkingDelta(String),
    /// The streamed text or thinking block is complete.
    BlockEnded,
    /// A whole answer text that was not streamed (a resumed session's history).
    AssistantText(String),
    /// A prompt of the conversation (a resumed session's history).
    UserPrompt(String),
    ToolStarted(ToolCall),
    ToolFinished {
        id: String,
        is_error: bool,
        output: String,
    },
    Permission(PermissionAsk),
    /// The question of a pending permission was withdrawn (the turn was interrupted).
    PermissionWithdrawn(String),
    TurnEnded(TurnEnd),
    ModeChanged(String),
    ModelChanged(String),
    /// How full the model's context is (after a turn).
    Context {
        used_tokens: u64,
        window: u64,
    },
    Notice(Notice),
    /// The session has ended; nothing more will come.
    Ended,
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct SessionInfo {
    pub session_id: String,
    pub model: String,
    pub permission_mode: String,
    /// Command names without the leading `/`.
    pub slash_commands: Vec<String>,
}

/// A tool call as one line: the tool, what it was asked (summarised) and, for edits and
/// writes, the change it makes.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub summary: String,
    pub diff: Option<FileChange>,
    /// Nested under another call (a subagent's).
    pub parent: Option<String>,
}

/// Text before and after, for a coloured diff.
#[derive(Debug, Clone, PartialEq)]
pub struct FileChange {
    pub path: String,
    pub before: String,
    pub after: String,
}

/// A tool call waiting for the user's yes or no.
#[derive(Debug, Clone, PartialEq)]
pub struct PermissionAsk {
    pub id: String,
    pub tool: String,
    pub summary: String,
    /// The rule "don't ask again" would add, as a person reads it (`Bash(echo hi)`), when
    /// there is one.
    pub rule: Option<String>,
    pub diff: Option<FileChange>,
    pub kind: AskKind,
}

/// What a question is: a tool call to approve, a plan to approve (ExitPlanMode), or the
/// model's own questions (AskUserQuestion).
#[derive(Debug, Clone, PartialEq, Default)]
pub enum AskKind {
    #[default]
    Tool,
    Plan(String),
    Questions(Vec<Question>),
    /// A server of the project's `.mcp.json` that no setting approves or disables:
    /// may it start? (`command`: how it is run, for the user to judge.)
    McpServer {
        server: String,
        command: String,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    pub header: String,
    pub question: String,
    /// (label, description)
    pub options: Vec<(String, String)>,
}

/// The user's answer to a [`PermissionAsk`].
#[derive(Debug, Clone, PartialEq)]
pub enum PermissionAnswer {
    Allow,
    /// Allow, and add the offered rule so the same call is not asked again.
    AllowAlways,
    /// No; the text tells the model what to do instead (may be empty).
    Deny(String),
    /// The chosen option's label for each question.
    Answers(Vec<(String, String)>),
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct TurnEnd {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cost_usd: f64,
    pub duration_ms: u64,
    pub error: Option<String>,
    pub interrupted: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Notice {
    pub level: NoticeLevel,
    pub text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoticeLevel {
    Info,
    Warning,
    Error,
}

impl Notice {
    pub fn info(text: impl Into<String>) -> Notice {
        Notice {
            level: NoticeLevel::Info,
            text: text.into(),
        }
    }
    pub fn warning(text: impl Into<String>) -> Notice {
        Notice {
            level: NoticeLevel::Warning,
            text: text.into(),
        }
    }
    pub fn error(text: impl Into<String>) -> Notice {
        Notice {
            level: NoticeLevel::Error,
            text: text.into(),
        }
    }
}
