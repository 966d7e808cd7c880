//! The real `dcl` in a pseudo-terminal on the mock model, its screen read through vt100.
//! The binary is `$DCL_BIN`, or `dcl` beside this test's directory in the target folder
//! (`cargo build -p dcl-cli` first).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, MasterPty, PtySize, native_pty_system};

const WAIT: Duration = Duration::from_secs(20);

fn dcl_bin() -> PathBuf {
    if let Some(p) = std::env::var_os("DCL_BIN") {
        return PathBuf::from(p);
    }
    let exe = std::env::current_exe().expect("test exe");
    let bin = exe
        .parent()
        .and_then(Path::parent)
        .map(|d| d.join("dcl"))
        .expect("target dir");
    assert!(
        bin.exists(),
        "{} is missing: `cargo build -p dcl-cli` first (or set DCL_BIN)",
        bin.display()
    );
    bin
}

struct Pty {
    master: Box<dyn MasterPty + Send>,
    writer: Arc<Mutex<Box<dyn Write + Send>>>,
    screen: Arc<Mutex<vt100::Parser>>,
    child: Box<dyn portable_pty::Child + Send + Sync>,
}

/// A project folder and a home folder of its own.
struct Dirs {
    _root: tempfile::TempDir,
    project: PathBuf,
    home: PathBuf,
}

/// The project is trusted already (the trust question has tests of its own).
fn dirs() -> Dirs {
    let d = untrusted_dirs();
    let record = serde_json::json!({"projects": {
        d.project.canonicalize().expect("real path").display().to_string():
            {"hasTrustDialogAccepted": true}}});
    std::fs::write(d.home.join(".claude.json"), record.to_string()).expect("write");
    d
}

fn untrusted_dirs() -> Dirs {
    let root = tempfile::tempdir().expect("tempdir");
    let project = root.path().join("project");
    let home = root.path().join("home");
    std::fs::create_dir_all(&project).expect("mkdir");
    std::fs::create_dir_all(&home).expect("mkdir");
    Dirs {
        _root: root,
        project,
        home,
    }
}

impl Pty {
    fn start(d: &Dirs, args: &[&str]) -> Pty {
        Pty::start_sized(d, args, 24, 100)
    }

    fn start_sized(d: &Dirs, args: &[&str], rows: u16, cols: u16) -> Pty {
        let pair = native_pty_system()
            .openpty(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("openpty");
        let mut cmd = CommandBuilder::new(dcl_bin());
        cmd.args(["--model", "mock-model"]);
        cmd.args(args);
        cmd.cwd(&d.project);
        cmd.env_clear();
        cmd.env("HOME", &d.home);
        cmd.env("PATH", std::env::var("PATH").unwrap_or_default());
        cmd.env("TERM", "xterm-256color");
        let child = pair.slave.spawn_command(cmd).expect("spawn dcl");
        drop(pair.slave);
        let writer = Arc::new(Mutex::new(pair.master.take_writer().expect("writer")));
        let screen = Arc::new(Mutex::new(vt100::Parser::new(rows, cols, 0)));
        let mut reader = pair.master.try_clone_reader().expect("reader");
        let (s, w) = (screen.clone(), writer.clone());
        std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                feed(&s, &w, &buf[..n]);
            }
        });
        Pty {
            master: pair.master,
            writer,
            screen,
            child,
        }
    }

    fn send(&self, bytes: &str) {
        let mut w = self.writer.lock().expect("writer");
        w.write_all(bytes.as_bytes()).expect("write to the pty");
        w.flush().expect("flush");
    }

    /// Types `text` a key at a time, as a person would (not as one paste).
    fn type_text(&self, text: &str) {
        for c in text.chars() {
            self.send(&c.to_string());
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    fn contents(&self) -> String {
        self.screen.lock().expect("screen").screen().contents()
    }

    fn wait_for(&self, what: &str) -> String {
        self.wait_until(what, |s| s.contains(what))
    }

    fn wait_until(&self, what: &str, ok: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let s = self.contents();
            if ok(&s) {
                return s;
            }
            assert!(
                start.elapsed() < WAIT,
                "waited for {what:?}; the screen:\n{s}"
            );
            std::thread::sleep(Duration::from_millis(30));
        }
    }

    fn wait_exit(&mut self) -> portable_pty::ExitStatus {
        let start = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                return status;
            }
            assert!(
                start.elapsed() < WAIT,
                "dcl did not exit; the screen:\n{}",
                self.contents()
            );
            std::thread::sleep(Duration::from_millis(30));
        }
    }

    /// Whether the terminal is in cooked mode (canonical input and echo on).
    fn cooked(&self) -> bool {
        let fd = self.master.as_raw_fd().expect("a unix pty");
        let mut t = std::mem::MaybeUninit::<libc::termios>::uninit();
        // SAFETY: `fd` is the open pty master; tcgetattr fills `t` on success.
        let rc = unsafe { libc::tcgetattr(fd, t.as_mut_ptr()) };
        assert_eq!(rc, 0, "tcgetattr");
        // SAFETY: initialised by the successful tcgetattr above.
        let t = unsafe { t.assume_init() };
        t.c_lflag & libc::ICANON != 0 && t.c_lflag & libc::ECHO != 0
    }
}

impl Drop for Pty {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

/// Feeds output to the screen, answering the terminal queries a real terminal would:
/// the cursor position (ratatui's inline viewport asks) and the device attributes (how
/// crossterm learns there is no keyboard enhancement).
fn feed(screen: &Mutex<vt100::Parser>, writer: &Mutex<Box<dyn Write + Send>>, mut bytes: &[u8]) {
    const QUERIES: [&[u8]; 2] = [b"\x1b[6n", b"\x1b[c"];
    loop {
        let next = QUERIES
            .iter()
            .filter_map(|q| find(bytes, q).map(|i| (i, *q)))
            .min_by_key(|(i, _)| *i);
        let Some((i, q)) = next else {
            screen.lock().expect("screen").process(bytes);
            return;
        };
        let reply = {
            let mut s = screen.lock().expect("screen");
            s.process(&bytes[..i]);
            if q == b"\x1b[6n" {
                let (row, col) = s.screen().cursor_position();
                format!("\x1b[{};{}R", row + 1, col + 1)
            } else {
                "\x1b[?1;2c".to_string()
            }
        };
        if let Ok(mut w) = writer.lock() {
            let _ = w.write_all(reply.as_bytes());
            let _ = w.flush();
        }
        bytes = &bytes[i + q.len()..];
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[test]
fn a_prompt_streams_its_answer_and_ctrl_d_leaves_cooked_mode() {
    let d = dirs();
    let mut pty = Pty::start(&d, &[]);
    pty.wait_for("shift+tab to cycle");
    assert!(!pty.cooked(), "raw mode while the UI runs");
    pty.type_text("hello there");
    pty.send("\r");
    pty.wait_for("Hello from the fake model.");
    // After the turn the status line says how full the context is.
    pty.wait_for("% of 200k");
    pty.send("\x04");
    let status = pty.wait_exit();
    assert!(status.success(), "{status:?}");
    assert!(pty.cooked(), "the terminal is back in cooked mode");
}

#[test]
fn a_first_prompt_on_the_command_line_is_sent() {
    let d = dirs();
    let mut pty = Pty::start(&d, &["please FAKE_THINK"]);
    pty.wait_for("Thought about it.");
    pty.send("\x04");
    pty.wait_exit();
}

#[test]
fn approving_a_tool_call_runs_it_and_denying_does_not() {
    let d = dirs();
    let mut pty = Pty::start(&d, &[]);
    pty.wait_for("shift+tab to cycle");
    pty.type_text("please FAKE_TOUCH");
    pty.send("\r");
    pty.wait_for("Do you want to proceed?");
    pty.send("1");
    pty.wait_for("Done. The tool result");
    assert!(
        d.project.join("made.txt").exists(),
        "approved: the file is made"
    );
    std::fs::remove_file(d.project.join("made.txt")).expect("rm");
    pty.type_text("again FAKE_TOUCH");
    pty.send("\r");
    pty.wait_until("a second question", |s| {
        s.matches("Do you want to proceed?").count() == 1 && s.contains("again FAKE_TOUCH")
    });
    pty.send("3");
    pty.wait_for("Tell dcl what to do instead");
    pty.send("\r");
    pty.wait_for("What should dcl do instead?");
    assert!(!d.project.join("made.txt").exists(), "denied: no file");
    pty.send("\x04");
    pty.wait_exit();
}

#[test]
fn dont_ask_again_writes_the_rule_and_the_next_call_runs_unasked() {
    let d = dirs();
    let mut pty = Pty::start(&d, &[]);
    pty.wait_for("shift+tab to cycle");
    pty.type_text("please FAKE_TOUCH");
    pty.send("\r");
    pty.wait_for("Do you want to proceed?");
    pty.send("2");
    pty.wait_for("Done. The tool result");
    let local = std::fs::read_to_string(d.project.join(".claude/settings.local.json"))
        .expect("the rule is written to the project's local settings");
    assert!(local.contains("touch made.txt"), "{local}");
    std::fs::remove_file(d.project.join("made.txt")).expect("rm");
    pty.type_text("again FAKE_TOUCH");
    pty.send("\r");
    pty.wait_until("the second run", |s| {
        s.matches("Done. The tool result").count() >= 2
    });
    assert!(!pty.contents().contains("Do you want to proceed?"));
    assert!(d.project.join("made.txt").exists());
    pty.send("\x04");
    pty.wait_exit();
}

#[test]
fn shift_tab_changes_the_mode_shown() {
    let d = dirs();
    let mut pty = Pty::start(&d, &[]);
    pty.wait_for("default mode");
    pty.send("\x1b[Z");
    pty.wait_for("accept edits on");
    pty.send("\x1b[Z");
    pty.wait_for("plan mode on");
    pty.send("\x04");
    pty.wait_exit();
}

#[test]
fn esc_stops_a_slow_answer_and_a_resize_mid_stream_keeps_drawing() {
    let d = dirs();
    let mut pty = Pty::start(&d, &[]);
    pty.wait_for("shift+tab to cycle");
    pty.type_text("please FAKE_SLOW");
    pty.send("\r");
    pty.wait_for("w3");
    pty.master
        .resize(PtySize {
            rows: 20,
            cols: 60,
            pixel_width: 0,
            pixel_height: 0,
        })
        .expect("resize");
    pty.screen.lock().expect("screen").set_size(20, 60);
    pty.wait_for("w6");
    pty.send("\x1b");
    let s = pty.wait_for("What should dcl do instead?");
    assert!(!s.contains("w39"), "stopped before the end:\n{s}");
    pty.send("\x04");
    pty.wait_exit();
}

#[test]
fn the_command_popup_lists_and_runs_a_custom_command() {
    let d = dirs();
    let commands = d.project.join(".claude/commands");
    std::fs::create_dir_all(&commands).expect("mkdir");
    std::fs::write(
        commands.join("greet.md"),
        "---\ndescription: Say hello\n---\nplease FAKE_THINK",
    )
    .expect("write");
    let mut pty = Pty::start(&d, &[]);
    pty.wait_for("shift+tab to cycle");
    pty.type_text("/gre");
    pty.wait_for("Say hello");
    pty.send("\r");
    pty.wait_for("Thought about it.");
    pty.send("\x04");
    pty.wait_exit();
}

#[test]
fn at_completion_attaches_a_file() {
    let d = dirs();
    std::fs::write(d.project.join("notes.txt"), "remember FAKE_THINK\n").expect("write");
    std::fs::write(d.project.join(".gitignore"), "secret.txt\n").expect("write");
    std::fs::write(d.project.join("secret.txt"), "x").expect("write");
    let mut pty = Pty::start(&d, &[]);
    pty.wait_for("shift+tab to cycle");
    pty.type_text("read @no");
    pty.wait_for("notes.txt");
    pty.send("\t");
    pty.wait_for("read @notes.txt");
    pty.send("\r");
    pty.wait_for("Attached @notes.txt");
    // The attached text reaches the model: its trigger word is in the file only.
    pty.wait_for("Thought about it.");
    pty.send("\x04");
    pty.wait_exit();
}

#[test]
fn continue_shows_the_earlier_conversation() {
    let d = dirs();
    let mut first = Pty::start(&d, &["please FAKE_THINK"]);
    first.wait_for("Thought about it.");
    first.send("\x04");
    first.wait_exit();
    let mut again = Pty::start(&d, &["-c"]);
    let s = again.wait_for("Thought about it.");
    assert!(s.contains("please FAKE_THINK"), "{s}");
    again.send("\x04");
    again.wait_exit();
}

#[test]
fn sighup_mid_turn_restores_the_terminal_and_keeps_the_transcript() {
    let d = dirs();
    let mut pty = Pty::start(&d, &[]);
    pty.wait_for("shift+tab to cycle");
    pty.type_text("please FAKE_SLOW");
    pty.send("\r");
    pty.wait_for("w2");
    let pid = pty.child.process_id().expect("a pid");
    // SAFETY: signalling our own child process.
    assert_eq!(unsafe { libc::kill(pid as libc::pid_t, libc::SIGHUP) }, 0);
    pty.wait_exit();
    assert!(pty.cooked(), "the terminal is back in cooked mode");
    let projects = d.home.join(".dcl/projects");
    let transcript = std::fs::read_dir(&projects)
        .expect("a projects folder")
        .flatten()
        .flat_map(|p| std::fs::read_dir(p.path()).into_iter().flatten().flatten())
        .find(|f| f.path().extension().is_some_and(|e| e == "jsonl"))
        .map(|f| std::fs::read_to_string(f.path()).expect("readable"))
        .expect("a transcript");
    assert!(transcript.contains("please FAKE_SLOW"), "{transcript}");
}

#[test]
fn history_is_per_project_and_up_recalls_it() {
    let d = dirs();
    let mut pty = Pty::start(&d, &[]);
    pty.wait_for("shift+tab to cycle");
    pty.type_text("remember this prompt");
    pty.send("\r");
    pty.wait_for("Hello from the fake model.");
    pty.send("\x04");
    pty.wait_exit();
    let mut again = Pty::start(&d, &[]);
    again.wait_for("shift+tab to cycle");
    again.send("\x1b[A");
    again.wait_until("the prompt recalled", |s| {
        s.matches("remember this prompt").count() == 1
    });
    again.send("\x04");
    again.wait_exit();
}

#[test]
fn approving_a_plan_leaves_plan_mode() {
    let d = dirs();
    let mut pty = Pty::start(&d, &["--permission-mode", "plan"]);
    pty.wait_for("plan mode on");
    pty.type_text("please FAKE_EXITPLAN");
    pty.send("\r");
    pty.wait_for("Ready to code?");
    pty.send("1");
    pty.wait_for("default mode");
    pty.send("\x04");
    pty.wait_exit();
}

#[test]
fn ctrl_o_shows_the_full_tool_output_and_returns() {
    let d = dirs();
    let mut pty = Pty::start(&d, &["--allowedTools", "Bash"]);
    pty.wait_for("shift+tab to cycle");
    pty.type_text(r#"FAKE_TOOL Bash {"command":"seq 101 107"}"#);
    pty.send("\r");
    let folded = pty.wait_for("+6 lines");
    assert!(!folded.contains("104"), "{folded}");
    pty.send("\x0f");
    pty.wait_for("Transcript");
    pty.wait_for("104");
    pty.send("\x0f");
    let back = pty.wait_until("the live area again", |s| {
        s.contains("shift+tab to cycle") && !s.contains("Transcript")
    });
    assert!(!back.contains("104"), "{back}");
    pty.send("\x04");
    pty.wait_exit();
}

#[test]
fn a_paste_of_megabytes_is_shown_collapsed_and_sent_whole() {
    let d = dirs();
    let mut pty = Pty::start(&d, &[]);
    pty.wait_for("shift+tab to cycle");
    let big: String = (0..40_000)
        .map(|i| format!("line {i} of a big paste\n"))
        .collect();
    assert!(big.len() > 1_000_000);
    pty.send(&format!("\x1b[200~{big}\x1b[201~"));
    pty.wait_for("[Pasted text #1 +40000 lines]");
    pty.type_text(" FAKE_THINK");
    pty.send("\r");
    pty.wait_for("Thought about it.");
    pty.send("\x04");
    pty.wait_exit();
}

#[test]
fn a_new_project_asks_for_trust_once_and_records_it() {
    let d = untrusted_dirs();
    std::fs::write(d.home.join(".claude.json"), r#"{"numStartups": 3}"#).expect("write");
    let mut pty = Pty::start(&d, &[]);
    pty.wait_for("Do you trust the files in this folder?");
    pty.send("1");
    pty.wait_for("shift+tab to cycle");
    pty.send("\x04");
    pty.wait_exit();
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.home.join(".claude.json")).expect("read"))
            .expect("json");
    assert_eq!(record["numStartups"], 3, "the rest of the file is kept");
    let key = d
        .project
        .canonicalize()
        .expect("real")
        .display()
        .to_string();
    assert_eq!(record["projects"][&key]["hasTrustDialogAccepted"], true);
    // Asked once: the next start goes straight to the prompt.
    let mut again = Pty::start(&d, &[]);
    let s = again.wait_for("shift+tab to cycle");
    assert!(!s.contains("Do you trust"), "{s}");
    again.send("\x04");
    again.wait_exit();
}

#[test]
fn declining_trust_exits_without_a_session() {
    let d = untrusted_dirs();
    let mut pty = Pty::start(&d, &["please FAKE_TOUCH"]);
    pty.wait_for("Do you trust the files in this folder?");
    pty.send("2");
    let status = pty.wait_exit();
    assert!(!status.success());
    assert!(pty.cooked());
    assert!(!d.project.join("made.txt").exists());
    assert!(!d.home.join(".claude.json").exists(), "nothing recorded");
}

#[test]
fn a_failing_model_is_shown_and_the_next_prompt_works() {
    let d = dirs();
    let mut pty = Pty::start(&d, &[]);
    pty.wait_for("shift+tab to cycle");
    pty.type_text("please FAKE_ERR400");
    pty.send("\r");
    pty.wait_for("fake: prompt is invalid");
    pty.type_text("hello");
    pty.send("\r");
    pty.wait_for("Hello from the fake model.");
    pty.send("\x04");
    pty.wait_exit();
}

#[test]
fn esc_esc_rewinds_the_conversation_and_a_file_to_before_an_earlier_prompt() {
    let d = dirs();
    // File checkpoints live beside a Git work tree.
    let git = std::process::Command::new("git")
        .args(["init", "-q"])
        .current_dir(&d.project)
        .status()
        .expect("git");
    assert!(git.success());
    std::fs::write(d.project.join("a.txt"), "original\n").expect("write");
    let mut pty = Pty::start(&d, &[]);
    pty.wait_for("shift+tab to cycle");
    pty.type_text("hello there");
    pty.send("\r");
    pty.wait_for("Hello from the fake model.");
    pty.type_text("please FAKE_WRITE a.txt");
    pty.send("\r");
    pty.wait_for("Do you want to proceed?");
    pty.send("1");
    pty.wait_for("Done. The tool result");
    assert_eq!(
        std::fs::read_to_string(d.project.join("a.txt")).expect("read"),
        "hello\n"
    );
    pty.send("\x1b");
    std::thread::sleep(Duration::from_millis(100));
    pty.send("\x1b");
    pty.wait_for("↶ please FAKE_WRITE a.txt");
    pty.send("\r");
    pty.wait_for("Rewound 1 file(s) and the conversation");
    assert_eq!(
        std::fs::read_to_string(d.project.join("a.txt")).expect("read"),
        "original\n"
    );
    // The rewound prompt is back in the input; the model no longer sees it.
    pty.wait_for("> please FAKE_WRITE a.txt");
    pty.send("\x03");
    pty.type_text("now FAKE_HISTORY");
    pty.send("\r");
    let s = pty.wait_for("Prompts seen:");
    let seen = s
        .lines()
        .find(|l| l.contains("Prompts seen:"))
        .map(str::trim)
        .unwrap_or_default();
    assert_eq!(
        seen, "● Prompts seen: hello there | now FAKE_HISTORY",
        "{s}"
    );
    pty.send("\x04");
    pty.wait_exit();
}

/// A stdio MCP server in POSIX sh: `planted.flag` marks that it was started; it offers one
/// tool, `t`, that answers `pong`.
const PLANTED_SERVER: &str = r#"touch planted.flag
while IFS= read -r line; do
  id=$(printf '%s' "$line" | sed -n 's/.*"id":\([0-9]*\).*/\1/p')
  case "$line" in
    *'"initialize"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"sh","version":"1"}}}\n' "$id" ;;
    *'"tools/list"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}}\n' "$id" ;;
    *'"tools/call"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"pong"}]}}\n' "$id" ;;
  esac
done"#;

fn plant_server(d: &Dirs) {
    let servers = serde_json::json!({"mcpServers": {"planted": {"command": "sh", "args": ["-c", PLANTED_SERVER]}}});
    std::fs::write(d.project.join(".mcp.json"), servers.to_string()).expect("write");
}

fn local_settings(d: &Dirs) -> serde_json::Value {
    let text = std::fs::read_to_string(d.project.join(".claude/settings.local.json"))
        .expect("the answer is remembered in the project's local settings");
    serde_json::from_str(&text).expect("json")
}

/// Calls the planted server's tool and returns the screen once the turn is over.
fn call_planted_tool(pty: &Pty, n: usize) -> String {
    pty.type_text("FAKE_TOOL mcp__planted__t {}");
    pty.send("\r");
    pty.wait_until("the tool call's end", |s| {
        s.matches("Done. The tool result had").count() >= n
    })
}

#[test]
fn a_planted_mcp_server_is_asked_about_and_no_keeps_it_off_for_good() {
    let d = dirs();
    plant_server(&d);
    let args = ["--allowedTools", "mcp__planted"];
    let mut pty = Pty::start(&d, &args);
    pty.wait_for("New MCP server found in .mcp.json: planted");
    pty.send("3");
    pty.wait_for("MCP server `planted` not started");
    let s = call_planted_tool(&pty, 1);
    assert!(s.contains("No such tool available"), "{s}");
    assert!(!d.project.join("planted.flag").exists(), "the server ran");
    pty.send("\x04");
    pty.wait_exit();
    assert_eq!(
        local_settings(&d)["disabledMcpjsonServers"],
        serde_json::json!(["planted"])
    );
    // The next start does not ask (its turn could not run while a question waits).
    let mut again = Pty::start(&d, &args);
    again.wait_for("shift+tab to cycle");
    let s = call_planted_tool(&again, 1);
    assert!(!s.contains("New MCP server"), "{s}");
    assert!(s.contains("No such tool available"), "{s}");
    assert!(!d.project.join("planted.flag").exists());
    again.send("\x04");
    again.wait_exit();
}

#[test]
fn a_planted_mcp_server_approved_starts_and_is_not_asked_about_again() {
    let d = dirs();
    plant_server(&d);
    let args = ["--allowedTools", "mcp__planted"];
    let mut pty = Pty::start(&d, &args);
    pty.wait_for("New MCP server found in .mcp.json: planted");
    pty.send("1");
    pty.wait_for("MCP server `planted` approved");
    let s = call_planted_tool(&pty, 1);
    assert!(s.contains("The tool result had 4 chars"), "pong: {s}");
    assert!(d.project.join("planted.flag").exists());
    pty.send("\x04");
    pty.wait_exit();
    assert_eq!(
        local_settings(&d)["enabledMcpjsonServers"],
        serde_json::json!(["planted"])
    );
    std::fs::remove_file(d.project.join("planted.flag")).expect("rm");
    let mut again = Pty::start(&d, &args);
    again.wait_for("shift+tab to cycle");
    let s = call_planted_tool(&again, 1);
    assert!(!s.contains("New MCP server"), "{s}");
    assert!(s.contains("The tool result had 4 chars"), "{s}");
    assert!(d.project.join("planted.flag").exists(), "started unasked");
    again.send("\x04");
    again.wait_exit();
}

#[test]
fn resume_without_an_id_picks_a_session_by_search_and_shows_its_history() {
    let d = dirs();
    for prompt in ["first please FAKE_THINK", "second hello there"] {
        let mut pty = Pty::start(&d, &[prompt]);
        pty.wait_until("the answer", |s| {
            s.contains("Thought about it.") || s.contains("Hello from the fake model.")
        });
        pty.send("\x04");
        pty.wait_exit();
    }
    let mut pty = Pty::start(&d, &["--resume"]);
    let s = pty.wait_for("Resume a session");
    pty.wait_for("second hello there");
    assert!(s.contains("first please FAKE_THINK"), "{s}");
    pty.type_text("first");
    pty.wait_until("the search narrowed", |s| !s.contains("second hello there"));
    pty.send("\r");
    let s = pty.wait_for("Thought about it.");
    assert!(s.contains("> first please FAKE_THINK"), "{s}");
    assert!(!s.contains("second hello there"), "{s}");
    pty.send("\x04");
    pty.wait_exit();
}

#[test]
fn a_subagents_tool_call_is_shown_nested_under_its_agent_call() {
    let d = dirs();
    let mut pty = Pty::start_sized(&d, &["--allowedTools", "Agent,Bash"], 60, 100);
    pty.wait_for("shift+tab to cycle");
    pty.type_text(
        r#"FAKE_TOOL Agent {"description": "Say hi", "prompt": "please FAKE_BASH", "subagent_type": "general-purpose"}"#,
    );
    pty.send("\r");
    let s = pty.wait_until("the turn's end", |s| {
        s.contains("Done. The tool result") && s.contains("Bash(echo hi)")
    });
    let lines: Vec<&str> = s.lines().collect();
    let agent = lines
        .iter()
        .position(|l| l.contains("Agent(Say hi)"))
        .unwrap_or_else(|| panic!("{s}"));
    let bash = lines
        .iter()
        .position(|l| l.contains("Bash(echo hi)"))
        .unwrap_or_else(|| panic!("{s}"));
    assert!(bash > agent, "{s}");
    assert!(lines[bash].starts_with("  ● Bash"), "nested: {s}");
    assert!(lines[agent].starts_with("● Agent"), "{s}");
    // The subagent's own words stay inside its call.
    assert!(!s.contains("I'll run it."), "{s}");
    pty.send("\x04");
    pty.wait_exit();
}
