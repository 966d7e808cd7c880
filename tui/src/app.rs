//! The UI's state and what keys and session events do to it. No terminal and no session
//! here: keys give [`Effect`]s the event loop carries out, so all of it is tested alone.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use crate::cells::{Cell, ToolCell, ToolResult};
use crate::commands::{self, Command};
use crate::files;
use crate::history::History;
use crate::prompt::Prompt;
use crate::view::{AskKind, Notice, PermissionAnswer, PermissionAsk, SessionInfo, UiEvent};

/// What the event loop does for the UI.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Send a prompt, named by a fresh uuid.
    Prompt {
        text: String,
        uuid: String,
    },
    /// Put files back as they were before the prompt with this uuid.
    Rewind {
        uuid: String,
        prompt: String,
    },
    Interrupt,
    SetMode(String),
    SetModel(String),
    Answer(String, PermissionAnswer),
    Shell(String),
    ToggleTranscript,
    Exit,
}

/// The text being streamed, not yet a cell.
#[derive(Debug, Clone, PartialEq)]
pub struct Stream {
    pub thinking: bool,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Dialog {
    pub ask: PermissionAsk,
    pub selected: usize,
    /// Typing what to do instead (after choosing "no").
    pub feedback: Option<String>,
    /// AskUserQuestion: the answers so far, one per question in order.
    pub answers: Vec<(String, String)>,
}

impl Dialog {
    fn new(ask: PermissionAsk) -> Dialog {
        Dialog {
            ask,
            selected: 0,
            feedback: None,
            answers: Vec::new(),
        }
    }

    /// How many choices the dialog shows now.
    pub fn choices(&self) -> usize {
        match &self.ask.kind {
            AskKind::Tool | AskKind::McpServer { .. } => 3,
            AskKind::Plan(_) => 2,
            AskKind::Questions(qs) => qs
                .get(self.answers.len())
                .map_or(1, |q| q.options.len().max(1)),
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum PopupKind {
    Commands,
    Files,
    /// Esc Esc: the earlier prompts to go back to (value: the prompt's uuid).
    Rewind,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Popup {
    pub kind: PopupKind,
    /// (what is inserted, description)
    pub items: Vec<(String, String)>,
    pub selected: usize,
}

pub const MODES: [&str; 3] = ["default", "acceptEdits", "plan"];
const POPUP_ITEMS: usize = 8;

pub struct App {
    pub cells: Vec<Cell>,
    /// Cells already printed to the scrollback.
    pub flushed: usize,
    pub stream: Option<Stream>,
    pub prompt: Prompt,
    pub info: SessionInfo,
    pub cost_usd: f64,
    pub tokens: u64,
    /// How full the model's context is: (tokens used, the context window), once known.
    pub context: Option<(u64, u64)>,
    pub busy_since: Option<Instant>,
    /// Characters streamed in this turn (the progress line's token estimate).
    pub streamed_chars: usize,
    pub dialog: Option<Dialog>,
    pub asks: VecDeque<PermissionAsk>,
    pub popup: Option<Popup>,
    /// Ctrl+R: the search typed so far.
    pub search: Option<String>,
    pub hint: Option<String>,
    pub exit: bool,
    pub expanded: bool,
    ctrl_c_armed: bool,
    esc_armed: bool,
    interrupted: bool,
    history: History,
    cwd: PathBuf,
    custom: Vec<Command>,
    files: Option<Vec<String>>,
    /// `!` commands' output, given to the model with the next prompt.
    shell_context: Vec<String>,
    /// The prompts sent, with their uuids (for rewind).
    prompts: Vec<(String, String)>,
}

impl App {
    /// `home` is the user's (custom commands), `dcl_home` dcl's own folder (history).
    pub fn new(
        cwd: PathBuf,
        home: Option<PathBuf>,
        dcl_home: Option<PathBuf>,
        info: SessionInfo,
    ) -> App {
        let history = History::load(dcl_home, cwd.display().to_string());
        let custom = commands::custom(&cwd, home.as_deref());
        App {
            cells: Vec::new(),
            flushed: 0,
            stream: None,
            prompt: Prompt::default(),
            info,
            cost_usd: 0.0,
            tokens: 0,
            context: None,
            busy_since: None,
            streamed_chars: 0,
            dialog: None,
            asks: VecDeque::new(),
            popup: None,
            search: None,
            hint: None,
            exit: false,
            expanded: false,
            ctrl_c_armed: false,
            esc_armed: false,
            interrupted: false,
            history,
            cwd,
            custom,
            files: None,
            shell_context: Vec::new(),
            prompts: Vec::new(),
        }
    }

    pub fn busy(&self) -> bool {
        self.busy_since.is_some()
    }

    /// The cells ready for the scrollback, in order, up to the first still running.
    pub fn take_finished(&mut self) -> &[Cell] {
        let start = self.flushed;
        while self.flushed < self.cells.len() && self.cells[self.flushed].finished() {
            self.flushed += 1;
        }
        &self.cells[start..self.flushed]
    }

    pub fn apply(&mut self, event: UiEvent) {
        match event {
            UiEvent::SessionInfo(info) => self.info = info,
            UiEvent::Requesting => {
                self.busy_since.get_or_insert_with(Instant::now);
            }
            UiEvent::TextDelta(t) => self.stream_in(false, &t),
            UiEvent::ThinkingDelta(t) => self.stream_in(true, &t),
            UiEvent::BlockEnded => self.end_stream(),
            UiEvent::AssistantText(t) => {
                self.end_stream();
                self.cells.push(Cell::Assistant(t));
            }
            UiEvent::UserPrompt(t) => self.cells.push(Cell::User(t)),
            UiEvent::ToolStarted(call) => {
                self.end_stream();
                let (at, depth) = self.nest_position(&call);
                self.cells.insert(
                    at,
                    Cell::Tool(ToolCell {
                        call,
                        result: None,
                        depth,
                    }),
                );
            }
            UiEvent::ToolFinished {
                id,
                is_error,
                output,
            } => {
                let found = self.cells.iter_mut().rev().find_map(|c| match c {
                    Cell::Tool(t) if t.call.id == id => Some(t),
                    _ => None,
                });
                if let Some(t) = found {
                    t.result = Some(ToolResult { is_error, output });
                }
            }
            UiEvent::Permission(ask) => {
                if self.dialog.is_none() {
                    self.dialog = Some(Dialog::new(ask));
                } else {
                    self.asks.push_back(ask);
                }
            }
            UiEvent::PermissionWithdrawn(id) => {
                self.asks.retain(|a| a.id != id);
                if self.dialog.as_ref().is_some_and(|d| d.ask.id == id) {
                    self.next_dialog();
                }
            }
            UiEvent::TurnEnded(end) => {
                self.end_stream();
                self.close_running_tools();
                self.busy_since = None;
                self.streamed_chars = 0;
                self.cost_usd = end.cost_usd.max(self.cost_usd);
                self.tokens += end.input_tokens + end.output_tokens;
                if self.interrupted || end.interrupted {
                    self.cells.push(Cell::Notice(Notice::warning(
                        "Interrupted · What should dcl do instead?",
                    )));
                } else if let Some(e) = end.error {
                    self.cells.push(Cell::Notice(Notice::error(e)));
                }
                self.interrupted = false;
            }
            UiEvent::ModeChanged(mode) => self.info.permission_mode = mode,
            UiEvent::ModelChanged(model) => self.info.model = model,
            UiEvent::Context {
                used_tokens,
                window,
            } => self.context = Some((used_tokens, window)),
            UiEvent::Notice(n) => {
                self.end_stream();
                self.cells.push(Cell::Notice(n));
            }
            UiEvent::Ended => self.exit = true,
        }
    }

    /// Where a call goes and how deep: a subagent's call right under its `Task` call's
    /// earlier ones (its parent still runs, so it is on the live area), one level deeper.
    fn nest_position(&self, call: &crate::view::ToolCall) -> (usize, usize) {
        let end = self.cells.len();
        let Some(parent) = &call.parent else {
            return (end, 0);
        };
        let found = (self.flushed..end)
            .rev()
            .find_map(|i| match &self.cells[i] {
                Cell::Tool(t) if &t.call.id == parent => Some((i, t.depth)),
                _ => None,
            });
        let Some((at, depth)) = found else {
            return (end, 1);
        };
        let mut after = at + 1;
        while after < end && matches!(&self.cells[after], Cell::Tool(t) if t.depth > depth) {
            after += 1;
        }
        (after, depth + 1)
    }

    fn stream_in(&mut self, thinking: bool, text: &str) {
        self.busy_since.get_or_insert_with(Instant::now);
        if self.stream.as_ref().is_some_and(|s| s.thinking != thinking) {
            self.end_stream();
        }
        self.streamed_chars += text.chars().count();
        self.stream
            .get_or_insert_with(|| Stream {
                thinking,
                text: String::new(),
            })
            .text
            .push_str(text);
    }

    fn end_stream(&mut self) {
        if let Some(s) = self.stream.take()
            && !s.text.trim().is_empty()
        {
            self.cells.push(if s.thinking {
                Cell::Thinking(s.text)
            } else {
                Cell::Assistant(s.text)
            });
        }
    }

    /// A turn that ended leaves no call running (an interrupted one never answers).
    fn close_running_tools(&mut self) {
        for c in &mut self.cells[self.flushed..] {
            if let Cell::Tool(t) = c
                && t.result.is_none()
            {
                t.result = Some(ToolResult {
                    is_error: true,
                    output: "Interrupted".into(),
                });
            }
        }
    }

    fn next_dialog(&mut self) {
        self.dialog = self.asks.pop_front().map(Dialog::new);
    }

    /// The output of a `!` command: shown, and given to the model with the next prompt.
    pub fn shell_done(&mut self, command: String, output: String) {
        self.shell_context.push(format!(
            "<bash-input>{command}</bash-input>\n<bash-stdout>{output}</bash-stdout>"
        ));
        self.cells.push(Cell::Shell { command, output });
    }

    pub fn paste(&mut self, text: &str) {
        if let Some(d) = &mut self.dialog {
            if let Some(f) = &mut d.feedback {
                f.push_str(text);
            }
            return;
        }
        self.prompt.paste(text);
        self.refresh_popup();
    }

    pub fn key(&mut self, key: KeyEvent) -> Vec<Effect> {
        if key.kind == KeyEventKind::Release {
            return Vec::new();
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        // Keys that act whatever is on screen.
        match key.code {
            KeyCode::Char('c') if ctrl => return self.ctrl_c(),
            KeyCode::Char('d') if ctrl => {
                self.exit = true;
                return vec![Effect::Exit];
            }
            KeyCode::Char('o') if ctrl => return vec![Effect::ToggleTranscript],
            _ => {}
        }
        self.ctrl_c_armed = false;
        if !matches!(key.code, KeyCode::Esc) {
            self.esc_armed = false;
        }
        if self.hint.is_some() && !matches!(key.code, KeyCode::Esc) {
            self.hint = None;
        }
        if self.dialog.is_some() {
            return self.dialog_key(key);
        }
        if self.search.is_some() {
            return self.search_key(key);
        }
        match key.code {
            KeyCode::Esc => return self.escape(),
            KeyCode::BackTab => return self.cycle_mode(),
            KeyCode::Char('r') if ctrl => {
                self.search = Some(String::new());
                return Vec::new();
            }
            _ => {}
        }
        if self.popup.is_some() {
            match key.code {
                KeyCode::Up => {
                    self.move_popup(-1);
                    return Vec::new();
                }
                KeyCode::Down => {
                    self.move_popup(1);
                    return Vec::new();
                }
                KeyCode::Tab => {
                    self.accept_popup();
                    return Vec::new();
                }
                KeyCode::Enter if key.modifiers.is_empty() => {
                    let kind = self.popup.as_ref().map(|p| p.kind.clone());
                    match kind {
                        Some(PopupKind::Rewind) => return self.accept_rewind(),
                        Some(PopupKind::Files) => {
                            self.accept_popup();
                            return Vec::new();
                        }
                        _ => {
                            self.accept_popup();
                            return self.submit();
                        }
                    }
                }
                _ => {}
            }
        }
        match key.code {
            KeyCode::Enter
                if key
                    .modifiers
                    .intersects(KeyModifiers::SHIFT | KeyModifiers::ALT) =>
            {
                self.prompt.newline()
            }
            KeyCode::Char('j') if ctrl => self.prompt.newline(),
            KeyCode::Enter => {
                if self.prompt.take_backslash() {
                    self.prompt.newline();
                } else {
                    return self.submit();
                }
            }
            KeyCode::Up if self.prompt.on_first_line() => {
                let current = self.prompt.text();
                if let Some(t) = self.history.prev(&current).map(str::to_string) {
                    self.prompt.set_text(&t);
                }
            }
            KeyCode::Down if self.prompt.on_last_line() => {
                if let Some(t) = self.history.next().map(str::to_string) {
                    self.prompt.set_text(&t);
                }
            }
            _ => self.prompt.input(key),
        }
        self.refresh_popup();
        Vec::new()
    }

    fn ctrl_c(&mut self) -> Vec<Effect> {
        if let Some(d) = &mut self.dialog {
            // As "no": the turn stops.
            let id = d.ask.id.clone();
            self.next_dialog();
            return vec![Effect::Answer(id, PermissionAnswer::Deny(String::new()))];
        }
        if !self.prompt.is_empty() || self.search.is_some() {
            self.prompt.clear();
            self.search = None;
            self.popup = None;
            self.ctrl_c_armed = false;
            return Vec::new();
        }
        if self.ctrl_c_armed {
            self.exit = true;
            return vec![Effect::Exit];
        }
        self.ctrl_c_armed = true;
        self.hint = Some("Press Ctrl+C again to exit".into());
        if self.busy() {
            self.interrupted = true;
            return vec![Effect::Interrupt];
        }
        Vec::new()
    }

    fn escape(&mut self) -> Vec<Effect> {
        if self.popup.take().is_some() {
            return Vec::new();
        }
        if self.busy() {
            self.interrupted = true;
            return vec![Effect::Interrupt];
        }
        if self.esc_armed {
            self.esc_armed = false;
            self.open_rewind();
            return Vec::new();
        }
        self.esc_armed = true;
        Vec::new()
    }

    /// The earlier prompts, newest first, to rewind to.
    fn open_rewind(&mut self) {
        if self.prompts.is_empty() {
            self.cells
                .push(Cell::Notice(Notice::info("Nothing to rewind to yet")));
            return;
        }
        let items = self
            .prompts
            .iter()
            .rev()
            .take(POPUP_ITEMS)
            .map(|(uuid, text)| {
                let first = text.lines().next().unwrap_or("").to_string();
                (uuid.clone(), first)
            })
            .collect();
        self.popup = Some(Popup {
            kind: PopupKind::Rewind,
            items,
            selected: 0,
        });
    }

    fn cycle_mode(&mut self) -> Vec<Effect> {
        let i = MODES
            .iter()
            .position(|m| *m == self.info.permission_mode)
            .map_or(0, |i| (i + 1) % MODES.len());
        vec![Effect::SetMode(MODES[i].to_string())]
    }

    fn dialog_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let Some(d) = &mut self.dialog else {
            return Vec::new();
        };
        if let Some(f) = &mut d.feedback {
            match key.code {
                KeyCode::Enter => {
                    let answer = PermissionAnswer::Deny(f.clone());
                    let id = d.ask.id.clone();
                    self.next_dialog();
                    return vec![Effect::Answer(id, answer)];
                }
                KeyCode::Esc => d.feedback = None,
                KeyCode::Backspace => {
                    f.pop();
                }
                KeyCode::Char(c) => f.push(c),
                _ => {}
            }
            return Vec::new();
        }
        let last = d.choices() - 1;
        let choice = match key.code {
            KeyCode::Up => {
                d.selected = d.selected.saturating_sub(1);
                None
            }
            KeyCode::Down => {
                d.selected = (d.selected + 1).min(last);
                None
            }
            KeyCode::Enter => Some(d.selected),
            KeyCode::Char('y') => Some(0),
            KeyCode::Char('n') => Some(last),
            KeyCode::Char(c @ '1'..='9') => Some(c as usize - '1' as usize).filter(|i| *i <= last),
            KeyCode::Esc => {
                let id = d.ask.id.clone();
                // A server's question belongs to no turn: nothing is interrupted.
                let in_turn = !matches!(d.ask.kind, AskKind::McpServer { .. });
                self.next_dialog();
                self.interrupted |= in_turn;
                return vec![Effect::Answer(id, PermissionAnswer::Deny(String::new()))];
            }
            _ => None,
        };
        let id = d.ask.id.clone();
        let Some(choice) = choice else {
            return Vec::new();
        };
        let choice = match &d.ask.kind {
            AskKind::Questions(qs) => {
                let Some(q) = qs.get(d.answers.len()) else {
                    return Vec::new();
                };
                let label = q
                    .options
                    .get(choice)
                    .map(|o| o.0.clone())
                    .unwrap_or_default();
                d.answers.push((q.question.clone(), label));
                d.selected = 0;
                if d.answers.len() < qs.len() {
                    return Vec::new();
                }
                let answers = std::mem::take(&mut d.answers);
                self.next_dialog();
                return vec![Effect::Answer(id, PermissionAnswer::Answers(answers))];
            }
            // A plan's choices are yes / no.
            AskKind::Plan(_) => Some(if choice == 0 { 0 } else { 2 }),
            // A server's are this one / all of the project's / none: a "no" needs no words.
            AskKind::McpServer { .. } => {
                let answer = match choice {
                    0 => PermissionAnswer::Allow,
                    1 => PermissionAnswer::AllowAlways,
                    _ => PermissionAnswer::Deny(String::new()),
                };
                self.next_dialog();
                return vec![Effect::Answer(id, answer)];
            }
            AskKind::Tool => Some(choice),
        };
        let answer = match choice {
            Some(0) => PermissionAnswer::Allow,
            Some(1) => PermissionAnswer::AllowAlways,
            Some(_) => {
                d.feedback = Some(String::new());
                return Vec::new();
            }
            None => return Vec::new(),
        };
        self.next_dialog();
        vec![Effect::Answer(id, answer)]
    }

    fn search_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let Some(q) = &mut self.search else {
            return Vec::new();
        };
        match key.code {
            KeyCode::Esc => self.search = None,
            KeyCode::Enter | KeyCode::Tab => {
                if let Some(found) = self.history.search(q).map(str::to_string) {
                    self.prompt.set_text(&found);
                }
                self.search = None;
            }
            KeyCode::Backspace => {
                q.pop();
            }
            KeyCode::Char(c) => q.push(c),
            _ => {}
        }
        Vec::new()
    }

    /// The history entry Ctrl+R's search finds now.
    pub fn search_match(&self) -> Option<&str> {
        self.search.as_deref().and_then(|q| self.history.search(q))
    }

    fn move_popup(&mut self, by: isize) {
        if let Some(p) = &mut self.popup {
            let n = p.items.len() as isize;
            if n > 0 {
                p.selected = (p.selected as isize + by).rem_euclid(n) as usize;
            }
        }
    }

    fn accept_rewind(&mut self) -> Vec<Effect> {
        let Some(p) = self.popup.take() else {
            return Vec::new();
        };
        let Some((uuid, prompt)) = p.items.get(p.selected) else {
            return Vec::new();
        };
        // That prompt and the later ones leave the conversation; the prompt comes back
        // into the input, to be changed and sent again.
        if let Some(at) = self.prompts.iter().position(|(u, _)| u == uuid) {
            let (_, text) = self.prompts.swap_remove(at);
            self.prompts.truncate(at);
            self.prompt.set_text(&text);
            self.prompt.move_to_end();
        }
        vec![Effect::Rewind {
            uuid: uuid.clone(),
            prompt: prompt.clone(),
        }]
    }

    fn accept_popup(&mut self) {
        let Some(p) = self.popup.take() else { return };
        let Some((value, _)) = p.items.get(p.selected) else {
            return;
        };
        match p.kind {
            PopupKind::Commands => self.prompt.set_text(&format!("/{value}")),
            PopupKind::Files => self.prompt.replace_current_word(&format!("@{value} ")),
            PopupKind::Rewind => return,
        }
        self.prompt.move_to_end();
    }

    /// Opens, narrows or closes the popup for what is typed.
    pub fn refresh_popup(&mut self) {
        if self
            .popup
            .as_ref()
            .is_some_and(|p| p.kind == PopupKind::Rewind)
        {
            return;
        }
        let text = self.prompt.text();
        let word = self.prompt.current_word();
        self.popup = if let Some(q) = text
            .strip_prefix('/')
            .filter(|q| !q.contains(char::is_whitespace))
        {
            let all = commands::merge(self.custom.clone(), &self.info.slash_commands);
            let names = files::rank_names(all.iter().map(|c| c.name.as_str()), q);
            let items: Vec<(String, String)> = names
                .into_iter()
                .take(POPUP_ITEMS)
                .filter_map(|n| all.iter().find(|c| c.name == n))
                .map(|c| (c.name.clone(), c.description.clone()))
                .collect();
            (!items.is_empty()).then_some(Popup {
                kind: PopupKind::Commands,
                items,
                selected: 0,
            })
        } else if let Some(q) = word.strip_prefix('@') {
            let cwd = self.cwd.clone();
            let list = self.files.get_or_insert_with(|| files::list(&cwd));
            let items: Vec<(String, String)> = files::rank(list, q, POPUP_ITEMS)
                .into_iter()
                .map(|f| (f, String::new()))
                .collect();
            (!items.is_empty()).then_some(Popup {
                kind: PopupKind::Files,
                items,
                selected: 0,
            })
        } else {
            None
        };
    }

    /// Sends `text` as if typed and entered (`dcl "first prompt"`).
    pub fn submit_text(&mut self, text: &str) -> Vec<Effect> {
        self.prompt.set_text(text);
        self.submit()
    }

    fn submit(&mut self) -> Vec<Effect> {
        let typed = self.prompt.text();
        let text = self.prompt.expanded();
        if text.trim().is_empty() {
            return Vec::new();
        }
        self.history.push(&typed);
        self.prompt.clear();
        self.popup = None;
        if let Some(cmd) = text.strip_prefix('!') {
            return vec![Effect::Shell(cmd.trim().to_string())];
        }
        if let Some(rest) = text.strip_prefix('/') {
            let (name, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            if let Some(effects) = self.local_command(name, args.trim()) {
                return effects;
            }
        }
        self.send(text)
    }

    /// Sends a prompt: `@` files attached, `!` output before it.
    fn send(&mut self, text: String) -> Vec<Effect> {
        self.cells.push(Cell::User(text.clone()));
        let mut full = String::new();
        for c in self.shell_context.drain(..) {
            full.push_str(&c);
            full.push_str("\n\n");
        }
        full.push_str(&text);
        for note in crate::attach::attach(&self.cwd, &text, &mut full) {
            self.cells.push(Cell::Notice(note));
        }
        self.busy_since = Some(Instant::now());
        let uuid = uuid::Uuid::new_v4().to_string();
        self.prompts.push((uuid.clone(), text));
        vec![Effect::Prompt { text: full, uuid }]
    }

    /// Commands the terminal answers itself; `None` for those the session runs.
    fn local_command(&mut self, name: &str, args: &str) -> Option<Vec<Effect>> {
        let note = |app: &mut App, text: String| {
            app.cells.push(Cell::Notice(Notice::info(text)));
            Some(Vec::new())
        };
        match name {
            "exit" | "quit" => {
                self.exit = true;
                Some(vec![Effect::Exit])
            }
            "help" => note(self, HELP.to_string()),
            "status" => {
                let text = format!(
                    "Session {}\nModel {}\nPermission mode {}\nDirectory {}",
                    self.info.session_id,
                    self.info.model,
                    self.info.permission_mode,
                    self.cwd.display()
                );
                note(self, text)
            }
            "permissions" => {
                let text = format!(
                    "Permission mode: {} (Shift+Tab cycles default → acceptEdits → plan). \
                     Rules: .claude/settings.local.json, .claude/settings.json, ~/.claude/settings.json",
                    self.info.permission_mode
                );
                note(self, text)
            }
            "model" if args.is_empty() => {
                let text = format!("Model: {} (/model <name> to change)", self.info.model);
                note(self, text)
            }
            "model" => {
                self.info.model = args.to_string();
                Some(vec![Effect::SetModel(args.to_string())])
            }
            "resume" => note(
                self,
                "Resume with `dcl --resume <session id>` or `dcl -c` for the latest".into(),
            ),
            "rewind" => {
                self.open_rewind();
                Some(Vec::new())
            }
            "init" => Some(self.send(INIT_PROMPT.to_string())),
            _ => None,
        }
    }
}

const HELP: &str = "Keys: Enter sends · Shift+Enter or \\+Enter new line · ↑/↓ history · Ctrl+R search history\n\
Esc interrupts · Shift+Tab cycles the permission mode · Ctrl+O full transcript\n\
Ctrl+C clears the input, twice exits · Ctrl+D exits\n\
/ commands · @ attaches a file · ! runs a shell command";

const INIT_PROMPT: &str = "Please analyze this codebase and create a CLAUDE.md file containing the build, test and lint commands and a short overview of the code's architecture. If a CLAUDE.md exists, improve it.";
