//! The stream-json loop: stdin lines → `Bridge::send`, `Bridge::recv` → stdout lines.
//!
//! A dedicated thread owns stdin so shutdown never blocks on a read; SIGTERM or SIGINT
//! cancels the running turn (killing its tools) and exits within a second.

use std::io::Write;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use dcl_bridge::{Bridge, BridgeError};
use dcl_engine::SessionOptions;
use dcl_engine::options::DEFAULT_MAX_LINE_BYTES;
use dcl_protocol::Message;
use tokio::sync::mpsc;

use crate::line_reader::{self, Line};

pub fn run(opts: SessionOptions) -> Result<ExitCode, String> {
    let rt = dcl_bridge::runtime().map_err(|e| e.to_string())?;
    let max_line = opts.max_line_bytes.unwrap_or(DEFAULT_MAX_LINE_BYTES);
    let bridge = Arc::new(dcl_bridge::open_with(opts).map_err(|e| e.to_string())?);
    // Bounded: a host that writes faster than the session reads waits in its pipe.
    let (line_tx, line_rx) = mpsc::channel::<String>(64);
    spawn_stdin_reader(line_tx, max_line);
    let code = rt.block_on(serve(bridge, line_rx));
    Ok(code)
}

/// Reads stdin into `tx` line by line; a line over `max_line` bytes is discarded while
/// it is read (never held whole) and answered with an error on stderr.
fn spawn_stdin_reader(tx: mpsc::Sender<String>, max_line: u64) {
    let spawned = std::thread::Builder::new()
        .name("dcl-stdin".into())
        .spawn(move || {
            let stdin = std::io::stdin();
            // A large buffer: a huge line is skipped in few reads.
            let mut reader = std::io::BufReader::with_capacity(1 << 20, stdin.lock());
            loop {
                match line_reader::read_line(&mut reader, max_line) {
                    Ok(None) => break,
                    Ok(Some(Line::Text(line))) => {
                        if tx.blocking_send(line).is_err() {
                            break;
                        }
                    }
                    Ok(Some(Line::TooLong { bytes })) => eprintln!(
                        "Error: an input line of {bytes} bytes is over the limit of {max_line} \
                         bytes (DCL_MAX_LINE_BYTES); it was discarded"
                    ),
                    Err(e) => {
                        eprintln!("Error reading stdin: {e}");
                        break;
                    }
                }
            }
            // Dropping `tx` tells the loop that input has ended.
        });
    if let Err(e) = spawned {
        eprintln!("Error: cannot start the stdin reader: {e}");
    }
}

async fn serve(bridge: Arc<Bridge>, mut lines: mpsc::Receiver<String>) -> ExitCode {
    let writer = tokio::spawn(write_output(bridge.clone()));
    let mut sigterm = signal(tokio::signal::unix::SignalKind::terminate());
    let mut sigint = signal(tokio::signal::unix::SignalKind::interrupt());
    let mut input_open = true;
    let mut writer = writer;
    loop {
        tokio::select! {
            line = lines.recv(), if input_open => match line {
                Some(line) => feed(&bridge, &line).await,
                None => {
                    input_open = false;
                    bridge.end_input();
                }
            },
            _ = recv_signal(&mut sigterm) => return shutdown(&bridge, writer).await,
            _ = recv_signal(&mut sigint) => return shutdown(&bridge, writer).await,
            done = &mut writer => {
                return match done {
                    Ok(last_error) => exit_code(last_error),
                    Err(_) => ExitCode::from(1),
                };
            }
        }
    }
}

async fn feed(bridge: &Bridge, line: &str) {
    loop {
        match bridge.send(line) {
            Ok(()) => return,
            // The session's queue is full: wait for it rather than drop the line.
            Err(BridgeError::Busy(_)) => tokio::time::sleep(Duration::from_millis(2)).await,
            Err(BridgeError::BadInput(e)) => {
                eprintln!("Error parsing streaming input line: {}: {e}", preview(line));
                return;
            }
            Err(e) => {
                eprintln!("Error: {e}");
                return;
            }
        }
    }
}

fn preview(line: &str) -> String {
    if line.chars().count() > 200 {
        format!("{}…", line.chars().take(200).collect::<String>())
    } else {
        line.to_string()
    }
}

/// Writes every outbound line; returns whether the last result was an error.
async fn write_output(bridge: Arc<Bridge>) -> bool {
    let mut last_error = false;
    let stdout = std::io::stdout();
    while let Some(message) = bridge.recv_message().await {
        if let Message::Result(r) = &message {
            last_error = r.is_error;
        }
        let line = dcl_protocol::to_line(&message);
        let mut out = stdout.lock();
        if writeln!(out, "{line}").and_then(|_| out.flush()).is_err() {
            // The reader is gone (broken pipe): nobody can see more output.
            bridge.close();
            break;
        }
    }
    last_error
}

async fn shutdown(bridge: &Bridge, writer: tokio::task::JoinHandle<bool>) -> ExitCode {
    bridge.close();
    // The session ends once its turn is cancelled; never wait more than a second.
    let _ = tokio::time::timeout(Duration::from_millis(900), writer).await;
    ExitCode::from(143)
}

fn exit_code(last_error: bool) -> ExitCode {
    if last_error {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn signal(kind: tokio::signal::unix::SignalKind) -> Option<tokio::signal::unix::Signal> {
    tokio::signal::unix::signal(kind).ok()
}

async fn recv_signal(sig: &mut Option<tokio::signal::unix::Signal>) {
    match sig {
        Some(s) => {
            s.recv().await;
        }
        None => std::future::pending::<()>().await,
    }
}
