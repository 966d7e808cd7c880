//! Widget-level snapshots of the live area and the history, each at two sizes.

use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use dcl_tui::testing::Effect;
use dcl_tui::testing::{App, Cell, ToolCell, ToolResult, draw, transcript_lines};
use dcl_tui::view::{
    AskKind, FileChange, PermissionAnswer, PermissionAsk, Question, SessionInfo, ToolCall, UiEvent,
};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::widgets::{Paragraph, Widget};

const SIZES: [(u16, u16); 2] = [(80, 14), (44, 18)];

fn app(dir: &std::path::Path) -> App {
    App::new(
        dir.to_path_buf(),
        None,
        None,
        SessionInfo {
            session_id: "s-1".into(),
            model: "mock-model".into(),
            permission_mode: "default".into(),
            slash_commands: vec!["clear".into(), "compact".into()],
        },
    )
}

fn live(app: &App, (w, h): (u16, u16)) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("test terminal");
    let now = app.busy_since.unwrap_or_else(Instant::now);
    t.draw(|f| draw(f, app, now)).expect("draws");
    t.backend().to_string()
}

fn history(cells: &[Cell], expanded: bool, (w, _): (u16, u16)) -> String {
    let lines = transcript_lines(cells, w, expanded);
    let h = lines.len() as u16;
    let mut t = Terminal::new(TestBackend::new(w, h.max(1))).expect("test terminal");
    t.draw(|f| Paragraph::new(lines).render(f.area(), f.buffer_mut()))
        .expect("draws");
    t.backend().to_string()
}

fn typed(app: &mut App, text: &str) {
    for c in text.chars() {
        app.key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
    }
}

fn name(what: &str, (w, h): (u16, u16)) -> String {
    format!("{what}_{w}x{h}")
}

#[test]
fn prompt_with_two_lines() {
    let dir = tempfile::tempdir().expect("tempdir");
    for size in SIZES {
        let mut a = app(dir.path());
        typed(&mut a, "first line\\");
        a.key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
        typed(&mut a, "second line");
        assert_eq!(a.prompt.text(), "first line\nsecond line");
        insta::assert_snapshot!(name("prompt", size), live(&a, size));
    }
}

#[test]
fn command_popup_lists_a_projects_custom_command() {
    let dir = tempfile::tempdir().expect("tempdir");
    let commands = dir.path().join(".claude/commands");
    std::fs::create_dir_all(&commands).expect("mkdir");
    std::fs::write(
        commands.join("deploy.md"),
        "---\ndescription: Ship it\n---\nDeploy now",
    )
    .expect("write");
    for size in SIZES {
        let mut a = app(dir.path());
        typed(&mut a, "/de");
        let popup = a.popup.as_ref().expect("the popup is open");
        assert!(popup.items.iter().any(|(n, _)| n == "deploy"), "{popup:?}");
        insta::assert_snapshot!(name("popup", size), live(&a, size));
    }
}

fn ask() -> PermissionAsk {
    PermissionAsk {
        id: "r1".into(),
        tool: "Bash".into(),
        summary: "touch made.txt && echo made".into(),
        rule: Some("Bash(touch made.txt && echo made)".into()),
        diff: None,
        kind: AskKind::Tool,
    }
}

#[test]
fn permission_dialog() {
    let dir = tempfile::tempdir().expect("tempdir");
    for size in SIZES {
        let mut a = app(dir.path());
        a.apply(UiEvent::Permission(ask()));
        insta::assert_snapshot!(name("permission", size), live(&a, size));
        // "No" asks what to do instead.
        a.key(KeyEvent::new(KeyCode::Char('3'), KeyModifiers::NONE));
        typed(&mut a, "use ls");
        insta::assert_snapshot!(name("permission_feedback", size), live(&a, size));
    }
}

#[test]
fn streamed_answer_in_progress() {
    let dir = tempfile::tempdir().expect("tempdir");
    for size in SIZES {
        let mut a = app(dir.path());
        a.apply(UiEvent::Requesting);
        for part in [
            "# Plan\n\nThis is **bold** and `code`; a long sentence that wraps ",
            "on narrow terminals.\n\n- one\n- two\n\n```rust\nfn main() {}\n```\n",
        ] {
            a.apply(UiEvent::TextDelta(part.into()));
        }
        insta::assert_snapshot!(name("streaming", size), live(&a, size));
    }
}

fn edit_cell() -> Cell {
    Cell::Tool(ToolCell {
        call: ToolCall {
            id: "t1".into(),
            name: "Edit".into(),
            summary: "src/lib.rs".into(),
            diff: Some(FileChange {
                path: "src/lib.rs".into(),
                before: "fn a() {}\nfn b() {\n    old();\n}\nfn c() {}\n".into(),
                after: "fn a() {}\nfn b() {\n    new();\n    more();\n}\nfn c() {}\n".into(),
            }),
            parent: None,
        },
        depth: 0,
        result: Some(ToolResult {
            is_error: false,
            output: "The file src/lib.rs has been updated.".into(),
        }),
    })
}

#[test]
fn diff_of_an_edit() {
    for size in SIZES {
        insta::assert_snapshot!(name("diff", size), history(&[edit_cell()], false, size));
    }
}

fn bash_cell() -> Cell {
    Cell::Tool(ToolCell {
        call: ToolCall {
            id: "t2".into(),
            name: "Bash".into(),
            summary: "ls -1".into(),
            diff: None,
            parent: None,
        },
        depth: 0,
        result: Some(ToolResult {
            is_error: false,
            output: "Cargo.toml\nREADME.md\nsrc\ntests".into(),
        }),
    })
}

#[test]
fn tool_line_folded_and_expanded() {
    let cells = [
        Cell::User("list the files".into()),
        Cell::Thinking("The user wants a listing.\nls will do.".into()),
        bash_cell(),
        Cell::Assistant("There are **four** entries.".into()),
    ];
    for size in SIZES {
        let folded = history(&cells, false, size);
        assert!(folded.contains("+3 lines"), "{folded}");
        assert!(!folded.contains("tests"), "{folded}");
        insta::assert_snapshot!(name("tool_folded", size), folded);
        let expanded = history(&cells, true, size);
        assert!(expanded.contains("tests") && expanded.contains("ls will do"));
        insta::assert_snapshot!(name("tool_expanded", size), expanded);
    }
}

#[test]
fn a_tiny_terminal_still_draws() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut a = app(dir.path());
    a.apply(UiEvent::Permission(ask()));
    for size in [(10, 2), (1, 1), (3, 5)] {
        let _ = live(&a, size);
    }
}

#[test]
fn plan_and_question_dialogs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let plan = PermissionAsk {
        id: "p1".into(),
        tool: "ExitPlanMode".into(),
        summary: String::new(),
        rule: None,
        diff: None,
        kind: AskKind::Plan("1. Create hello.txt\n2. Done".into()),
    };
    let question = |q: &str| Question {
        header: "Style".into(),
        question: q.into(),
        options: vec![
            ("Tabs".into(), "One tab per level".into()),
            ("Spaces".into(), "Four spaces".into()),
        ],
    };
    let asks = PermissionAsk {
        id: "q1".into(),
        tool: "AskUserQuestion".into(),
        summary: String::new(),
        rule: None,
        diff: None,
        kind: AskKind::Questions(vec![question("Indent with?"), question("Align with?")]),
    };
    for size in SIZES {
        let mut a = app(dir.path());
        a.apply(UiEvent::Permission(plan.clone()));
        insta::assert_snapshot!(name("plan", size), live(&a, size));
        assert_eq!(
            a.key(KeyEvent::new(KeyCode::Char('1'), KeyModifiers::NONE)),
            vec![Effect::Answer("p1".into(), PermissionAnswer::Allow)]
        );
        a.apply(UiEvent::Permission(asks.clone()));
        insta::assert_snapshot!(name("question", size), live(&a, size));
        assert!(
            a.key(KeyEvent::new(KeyCode::Char('2'), KeyModifiers::NONE))
                .is_empty()
        );
        a.key(KeyEvent::new(KeyCode::Down, KeyModifiers::NONE));
        let done = a.key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
        assert_eq!(
            done,
            vec![Effect::Answer(
                "q1".into(),
                PermissionAnswer::Answers(vec![
                    ("Indent with?".into(), "Spaces".into()),
                    ("Align with?".into(), "Spaces".into()),
                ])
            )]
        );
        assert!(a.dialog.is_none());
    }
}

#[test]
fn mcp_server_dialog() {
    let dir = tempfile::tempdir().expect("tempdir");
    for size in SIZES {
        let mut a = app(dir.path());
        a.apply(UiEvent::Permission(PermissionAsk {
            id: "r7".into(),
            tool: "planted".into(),
            summary: "python3 server.py".into(),
            rule: None,
            diff: None,
            kind: AskKind::McpServer {
                server: "planted".into(),
                command: "python3 server.py".into(),
            },
        }));
        a.key(KeyEvent::new(KeyCode::Down, KeyModifiers::NONE));
        insta::assert_snapshot!(name("mcp_server", size), live(&a, size));
        // "Use all of this project's servers" answers yes, remembered for all.
        let effects = a.key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
        assert_eq!(
            effects,
            [Effect::Answer("r7".into(), PermissionAnswer::AllowAlways)]
        );
        assert!(a.dialog.is_none());
    }
}

fn saved(id: &str, prompt: &str, minutes_ago: i64, bytes: u64) -> dcl_bridge::SavedSession {
    dcl_bridge::SavedSession {
        session_id: id.into(),
        first_prompt: Some(prompt.into()),
        summary: prompt.into(),
        last_modified_ms: NOW_MS - minutes_ago * 60_000,
        file_size: bytes,
    }
}

const NOW_MS: i64 = 1_800_000_000_000;

fn picker_screen(p: &dcl_tui::testing::Picker, (w, h): (u16, u16)) -> String {
    let mut t = Terminal::new(TestBackend::new(w, h)).expect("test terminal");
    t.draw(|f| dcl_tui::testing::draw_picker(f, p))
        .expect("draws");
    t.backend().to_string()
}

#[test]
fn resume_picker_lists_and_searches() {
    use dcl_tui::testing::{Picked, Picker};
    for size in SIZES {
        let mut p = Picker::new(
            vec![
                saved("s-3", "fix the flaky login test", 3, 812),
                saved("s-2", "explain the build scripts", 150, 48_300),
                saved(
                    "s-1",
                    "add a --verbose flag to the parser",
                    4 * 1440,
                    2_400_000,
                ),
            ],
            NOW_MS,
        );
        insta::assert_snapshot!(name("picker", size), picker_screen(&p, size));
        for c in "bild".chars() {
            p.key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE));
        }
        insta::assert_snapshot!(name("picker_search", size), picker_screen(&p, size));
        assert_eq!(
            p.key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)),
            Some(Picked::Open("s-2".into()))
        );
        assert_eq!(
            p.key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE)),
            Some(Picked::Cancelled)
        );
    }
}

/// Lines with each coloured span marked `Colour«text»`, so a snapshot shows the colours.
fn coloured(lines: &[ratatui::text::Line]) -> String {
    lines
        .iter()
        .map(|l| {
            l.spans
                .iter()
                .map(|s| match s.style.fg {
                    Some(c) => format!("{c:?}«{}»", s.content),
                    None => s.content.to_string(),
                })
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn code_blocks_are_syntax_coloured() {
    let answer = "Two snippets:\n\n```rust\n// add one\nfn add(x: u32) -> Option<u32> {\n    let s = \"a \\\"b\\\"\"; /* multi\n line */ Some(x + 1)\n}\n```\n\n```python\ndef f(n):\n    return None if n == 0 else 'x'  # done\n```\n\n```text\nfn is not coloured here\n```\n";
    for (w, _) in SIZES {
        let lines = dcl_tui::testing::render_markdown(answer, w);
        insta::assert_snapshot!(format!("highlight_{w}"), coloured(&lines));
    }
}

fn started(id: &str, name: &str, summary: &str, parent: Option<&str>) -> UiEvent {
    UiEvent::ToolStarted(ToolCall {
        id: id.into(),
        name: name.into(),
        summary: summary.into(),
        diff: None,
        parent: parent.map(str::to_string),
    })
}

fn finished(id: &str, output: &str) -> UiEvent {
    UiEvent::ToolFinished {
        id: id.into(),
        is_error: false,
        output: output.into(),
    }
}

#[test]
fn a_subagents_calls_are_nested_under_its_task_and_the_context_shows() {
    let dir = tempfile::tempdir().expect("tempdir");
    for size in SIZES {
        let mut a = app(dir.path());
        a.apply(UiEvent::Requesting);
        a.apply(started("task", "Task", "Find the tests", None));
        a.apply(started("sub1", "Glob", "**/*_test.rs", Some("task")));
        // A main-thread call in parallel, then the subagent's next call: it still goes
        // under its Task, above the main-thread call.
        a.apply(started("main", "Bash", "cargo build", None));
        a.apply(started("sub2", "Read", "tests/a_test.rs", Some("task")));
        a.apply(finished("sub1", "tests/a_test.rs"));
        a.apply(finished("sub2", "fn a() {}"));
        a.apply(UiEvent::Context {
            used_tokens: 9_191,
            window: 200_000,
        });
        insta::assert_snapshot!(name("nested_running", size), live(&a, size));
        a.apply(finished("task", "Found 1 test file."));
        a.apply(finished("main", "ok"));
        let cells = a.take_finished().to_vec();
        insta::assert_snapshot!(name("nested_done", size), history(&cells, false, size));
    }
}
