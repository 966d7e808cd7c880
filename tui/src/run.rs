//! The event loop: one `tokio::select!` over the terminal's events, the session's events,
//! finished `!` commands and SIGHUP/SIGTERM — it sleeps until one of them has something
//! (a 200 ms tick runs only while a turn is in progress, for the elapsed time).

use std::io::stdout;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use crossterm::event::{Event, EventStream, KeyCode, KeyEventKind, KeyModifiers};
use dcl_argv::Args;
use dcl_bridge::SessionOptions;
use futures::StreamExt;
use ratatui::backend::CrosstermBackend;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget};
use ratatui::{Terminal, TerminalOptions, Viewport};
use tokio::sync::mpsc;

use crate::adapter::Link;
use crate::app::{App, Effect};
use crate::error::TuiError;
use crate::picker::{self, Picked, Picker};
use crate::stop::Stop;
use crate::terminal::{self, TerminalGuard};
use crate::view::{Notice, SessionInfo, UiEvent};
use crate::{trust, ui};

type Term = Terminal<CrosstermBackend<std::io::Stdout>>;

/// The live area's height: enough for a dialog or the popup above the prompt.
const VIEWPORT_ROWS: u16 = 16;

/// Runs the interactive mode until the user leaves or the session ends.
pub fn run(args: &Args, mut opts: SessionOptions) -> Result<ExitCode, TuiError> {
    let cwd = opts
        .cwd
        .clone()
        .or_else(|| std::env::current_dir().ok())
        .unwrap_or_else(|| PathBuf::from("."));
    let home = dcl_bridge::options::user_home(|k| {
        opts.env.get(k).cloned().or_else(|| std::env::var(k).ok())
    });
    let dcl_home = opts
        .env
        .get("DCL_CONFIG_DIR")
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".dcl")));
    let info = SessionInfo {
        model: opts.model.clone().unwrap_or_default(),
        permission_mode: opts
            .permission_mode
            .clone()
            .unwrap_or_else(|| "default".into()),
        ..SessionInfo::default()
    };
    let first_prompt = args.positionals.join(" ");
    let resumed = opts.resume.is_some() || opts.continue_conversation;
    let record = trust::record_path(
        &opts.env,
        opts.dialect == dcl_bridge::options::Dialect::Qoder,
    );
    let rt = dcl_bridge::runtime()?;
    let _enter = rt.enter();
    let guard = TerminalGuard::enter()?;
    let rows = crossterm::terminal::size()?.1;
    let mut term = Terminal::with_options(
        CrosstermBackend::new(stdout()),
        TerminalOptions {
            viewport: Viewport::Inline(rows.clamp(1, VIEWPORT_ROWS)),
        },
    )?;
    let mut keys = EventStream::new();
    // Settings are read when the session opens: the question comes first.
    if let Some(record) = record.filter(|r| !trust::is_trusted(r, &cwd)) {
        if !rt.block_on(ask_trust(&mut term, &mut keys, &cwd))? {
            let _ = term.clear();
            drop(guard);
            eprintln!("dcl: this folder was not trusted; nothing was run");
            return Ok(ExitCode::from(1));
        }
        if let Err(e) = trust::record(&record, &cwd) {
            // Trusted for this run; the next one asks again.
            eprintln!(
                "warning: cannot record the trust in {}: {e}",
                record.display()
            );
        }
    }
    // `--resume` without an id: the user picks one of this directory's sessions.
    if opts.resume.as_deref() == Some("") {
        match rt.block_on(pick_session(&mut term, &mut keys, &opts))? {
            Some(id) => opts.resume = Some(id),
            None => {
                let _ = term.clear();
                drop(guard);
                eprintln!(
                    "dcl: no session was resumed (none is saved for this directory, or none was chosen)"
                );
                return Ok(ExitCode::SUCCESS);
            }
        }
        let _ = term.clear();
    }
    let local_settings = crate::mcp_settings::local_settings(
        &cwd,
        opts.dialect == dcl_bridge::options::Dialect::Qoder,
    );
    let mut link = Link::open(opts, local_settings)?;
    let mut app = App::new(cwd.clone(), home, dcl_home, info);
    app.info.session_id = link.session_id();
    if resumed {
        for e in link.history() {
            app.apply(e);
        }
    }
    let outcome = rt.block_on(event_loop(
        &mut term,
        &mut keys,
        &mut link,
        &mut app,
        cwd,
        first_prompt,
    ));
    // Leave the shell prompt under the conversation, not under an empty live area.
    let _ = term.clear();
    link.close();
    drop(guard);
    outcome.map(|()| ExitCode::SUCCESS)
}

async fn event_loop(
    term: &mut Term,
    keys: &mut EventStream,
    link: &mut Link,
    app: &mut App,
    cwd: PathBuf,
    first_prompt: String,
) -> Result<(), TuiError> {
    let mut stop = Stop::new()?;
    let mut tick = tokio::time::interval(Duration::from_millis(200));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let (shell_tx, mut shell_rx) = mpsc::channel::<(String, String)>(8);
    let mut ended = false;
    let mut effects = if first_prompt.trim().is_empty() {
        Vec::new()
    } else {
        app.submit_text(&first_prompt)
    };
    loop {
        for effect in effects.drain(..) {
            match effect {
                Effect::Exit => app.exit = true,
                Effect::ToggleTranscript => {
                    transcript(app, keys).await?;
                    term.clear()?;
                }
                other => perform(other, link, app, &cwd, &shell_tx),
            }
        }
        if app.exit {
            return Ok(());
        }
        flush(term, app)?;
        term.draw(|f| ui::draw(f, app, Instant::now()))?;
        tokio::select! {
            event = keys.next() => match event {
                Some(Ok(Event::Key(k))) => effects = app.key(k),
                Some(Ok(Event::Paste(text))) => app.paste(&text),
                Some(Ok(_)) => {}
                // The terminal is gone: leave as on SIGHUP.
                Some(Err(_)) | None => return Ok(()),
            },
            events = link.next(), if !ended => {
                for e in events {
                    ended |= e == UiEvent::Ended;
                    app.apply(e);
                }
            }
            Some((command, output)) = shell_rx.recv() => app.shell_done(command, output),
            _ = tick.tick(), if app.busy() => {}
            () = stop.recv() => return Ok(()),
        }
    }
}

fn perform(
    effect: Effect,
    link: &mut Link,
    app: &mut App,
    cwd: &std::path::Path,
    shell_tx: &mpsc::Sender<(String, String)>,
) {
    let sent = match effect {
        Effect::Prompt { text, uuid } => link.prompt(&text, &uuid),
        Effect::Rewind { uuid, .. } => link.rewind(&uuid),
        Effect::Interrupt => {
            link.interrupt();
            Ok(())
        }
        Effect::SetMode(mode) => link.set_mode(&mode),
        Effect::SetModel(model) => link.set_model(&model),
        Effect::Answer(id, answer) => link.answer(&id, &answer).map(|said| {
            if let Some(n) = said {
                app.apply(UiEvent::Notice(n));
            }
        }),
        Effect::Shell(command) => {
            let tx = shell_tx.clone();
            let cwd = cwd.to_path_buf();
            tokio::spawn(async move {
                let output = run_shell(&command, &cwd).await;
                let _ = tx.send((command, output)).await;
            });
            Ok(())
        }
        Effect::Exit | Effect::ToggleTranscript => Ok(()),
    };
    if let Err(e) = sent {
        app.apply(UiEvent::Notice(Notice::error(e.to_string())));
    }
}

/// A `!` command's output (stdout, then stderr), or why it could not run.
async fn run_shell(command: &str, cwd: &std::path::Path) -> String {
    let out = tokio::process::Command::new("sh")
        .arg("-c")
        .arg(command)
        .current_dir(cwd)
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true)
        .output()
        .await;
    match out {
        Ok(o) => {
            let mut text = String::from_utf8_lossy(&o.stdout).into_owned();
            text.push_str(&String::from_utf8_lossy(&o.stderr));
            if !o.status.success() {
                text.push_str(&format!(
                    "\n(exit status {})",
                    o.status.code().unwrap_or(-1)
                ));
            }
            text
        }
        Err(e) => format!("cannot run the command: {e}"),
    }
}

/// Finished cells go to the scrollback above the live area, once.
fn flush(term: &mut Term, app: &mut App) -> Result<(), TuiError> {
    let width = term.size()?.width;
    let lines: Vec<Line<'static>> = ui::transcript_lines(app.take_finished(), width, false);
    if lines.is_empty() {
        return Ok(());
    }
    let height = u16::try_from(lines.len()).unwrap_or(u16::MAX);
    term.insert_before(height, |buf| {
        Paragraph::new(lines).render(buf.area, buf);
    })?;
    Ok(())
}

/// Ctrl+O: the whole conversation, tool output and thinking unfolded, on the alternate
/// screen (the scrollback stays as it was). ↑/↓/PgUp/PgDn scroll; Ctrl+O, Esc or q return.
async fn transcript(app: &mut App, keys: &mut EventStream) -> Result<(), TuiError> {
    terminal::enter_alternate()?;
    let mut full = Terminal::new(CrosstermBackend::new(stdout()))?;
    let mut back: usize = 0;
    loop {
        full.draw(|f| {
            let area = f.area();
            let mut lines = ui::transcript_lines(&app.cells, area.width, true);
            app.expanded = true;
            lines.extend(ui::live_lines(app, area.width));
            app.expanded = false;
            let rows = usize::from(area.height.saturating_sub(1));
            back = back.min(lines.len().saturating_sub(rows));
            let start = lines.len().saturating_sub(rows + back);
            let shown: Vec<Line> = lines.into_iter().skip(start).take(rows).collect();
            f.render_widget(
                Paragraph::new(shown),
                Rect::new(0, 0, area.width, rows as u16),
            );
            f.render_widget(
                Paragraph::new(Line::styled(
                    "  Transcript · ↑/↓ scroll · ctrl+o or esc to return",
                    ratatui::style::Style::new().fg(ratatui::style::Color::DarkGray),
                )),
                Rect::new(0, area.height.saturating_sub(1), area.width, 1),
            );
        })?;
        match keys.next().await {
            Some(Ok(Event::Key(k))) if k.kind != KeyEventKind::Release => match k.code {
                KeyCode::Char('o') if k.modifiers.contains(KeyModifiers::CONTROL) => break,
                KeyCode::Esc | KeyCode::Char('q') => break,
                KeyCode::Up => back += 1,
                KeyCode::Down => back = back.saturating_sub(1),
                KeyCode::PageUp => back += 20,
                KeyCode::PageDown => back = back.saturating_sub(20),
                _ => {}
            },
            Some(Ok(_)) => {}
            Some(Err(_)) | None => break,
        }
    }
    terminal::leave_alternate()?;
    Ok(())
}

/// "Do you trust the files in this folder?" Yes goes on; No (or Esc, Ctrl+C, Ctrl+D, a
/// closed terminal) leaves before anything of the project is read.
async fn ask_trust(
    term: &mut Term,
    keys: &mut EventStream,
    cwd: &std::path::Path,
) -> Result<bool, TuiError> {
    let mut selected = 0usize;
    loop {
        term.draw(|f| ui::draw_trust(f, cwd, selected))?;
        match keys.next().await {
            Some(Ok(Event::Key(k))) if k.kind != KeyEventKind::Release => match k.code {
                KeyCode::Char('1') | KeyCode::Char('y') => return Ok(true),
                KeyCode::Enter => return Ok(selected == 0),
                KeyCode::Up => selected = 0,
                KeyCode::Down => selected = 1,
                KeyCode::Char('c' | 'd') if k.modifiers.contains(KeyModifiers::CONTROL) => {
                    return Ok(false);
                }
                KeyCode::Char('2') | KeyCode::Char('n') | KeyCode::Esc => return Ok(false),
                _ => {}
            },
            Some(Ok(_)) => {}
            Some(Err(_)) | None => return Ok(false),
        }
    }
}

/// The session `--resume` without an id opens, chosen from this directory's; `None` when
/// there is none or the user cancelled.
async fn pick_session(
    term: &mut Term,
    keys: &mut EventStream,
    opts: &SessionOptions,
) -> Result<Option<String>, TuiError> {
    let sessions = dcl_bridge::saved_sessions(opts)?;
    if sessions.is_empty() {
        return Ok(None);
    }
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
    let mut picker = Picker::new(sessions, now_ms);
    loop {
        term.draw(|f| picker::draw(f, &picker))?;
        match keys.next().await {
            Some(Ok(Event::Key(k))) => match picker.key(k) {
                Some(Picked::Open(id)) => return Ok(Some(id)),
                Some(Picked::Cancelled) => return Ok(None),
                None => {}
            },
            Some(Ok(_)) => {}
            Some(Err(_)) | None => return Ok(None),
        }
    }
}
