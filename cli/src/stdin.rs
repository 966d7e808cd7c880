//! Reading the host's lines from stdin into the loop's channel.
//!
//! A pipe or a socket — what every SDK gives dcl — is read without blocking, by a task the
//! runtime wakes when there is input: starting a reader thread was ~0.1 ms of every
//! session's start-up, and each line then crossed threads twice more (BENCHMARKS.md,
//! "Start-up without threads"). Anything else (a terminal, a file, `/dev/null`) keeps a
//! blocking reader thread: `O_NONBLOCK` is a flag of the open file, and a terminal's is
//! shared with the shell that started dcl.

#[cfg(unix)]
use std::fs::File;
#[cfg(unix)]
use std::io::BufRead;
use std::io::{self, BufReader};
#[cfg(unix)]
use std::os::fd::AsFd;

#[cfg(unix)]
use tokio::io::Interest;
#[cfg(unix)]
use tokio::io::unix::AsyncFd;
use tokio::sync::mpsc;

use crate::line_reader::{Line, LineReader};
#[cfg(unix)]
use crate::nonblocking;

/// Large: a huge line is skipped in few reads.
const BUFFER: usize = 1 << 20;

/// Starts reading stdin into `tx` (dropped at end of input); a line over `max_line` bytes
/// is discarded while it is read (never held whole) and reported on stderr. Call within
/// the runtime.
pub fn start(tx: mpsc::Sender<String>, max_line: u64) {
    // Windows: a reader thread (no readiness for pipes there).
    #[cfg(not(unix))]
    spawn_thread(tx, max_line);
    #[cfg(unix)]
    match nonblocking::open(io::stdin().as_fd(), Interest::READABLE) {
        Some(fd) => {
            tokio::spawn(read_async(fd, tx, max_line));
        }
        None => spawn_thread(tx, max_line),
    }
}

#[cfg(unix)]
async fn read_async(fd: AsyncFd<File>, tx: mpsc::Sender<String>, max_line: u64) {
    // `&File` reads straight into the buffer's spare room; a `Read` without `read_buf`
    // would have the whole megabyte zeroed first (256 page faults).
    let mut reader = BufReader::with_capacity(BUFFER, fd.get_ref());
    let mut lines = LineReader::new(max_line);
    loop {
        let chunk = match reader.fill_buf() {
            Ok(chunk) => chunk,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            // Everything ready was read: wait for more (a partial line stays in `lines`).
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => match fd.readable().await {
                Ok(mut ready) => {
                    ready.clear_ready();
                    continue;
                }
                Err(e) => {
                    read_failed(e);
                    break;
                }
            },
            Err(e) => {
                read_failed(e);
                break;
            }
        };
        let (used, line) = if chunk.is_empty() {
            (0, lines.finish())
        } else {
            lines.feed(chunk)
        };
        let ended = chunk.is_empty();
        reader.consume(used);
        if let Some(Line::TooLong { bytes }) = line {
            too_long(bytes, max_line);
        } else if let Some(Line::Text(text)) = line
            && tx.send(text).await.is_err()
        {
            break;
        }
        if ended {
            break;
        }
        // A host writing one huge line as fast as it is read never makes this wait: let
        // the session's other tasks (and SIGTERM) run between buffers.
        tokio::task::consume_budget().await;
    }
    // Dropping `tx` tells the loop that input has ended.
}

fn spawn_thread(tx: mpsc::Sender<String>, max_line: u64) {
    let spawned = std::thread::Builder::new()
        .name("dcl-stdin".into())
        .spawn(move || {
            let mut reader = BufReader::with_capacity(BUFFER, io::stdin().lock());
            let mut lines = LineReader::new(max_line);
            loop {
                match lines.read_line(&mut reader) {
                    Ok(None) => break,
                    Ok(Some(Line::Text(line))) => {
                        if tx.blocking_send(line).is_err() {
                            break;
                        }
                    }
                    Ok(Some(Line::TooLong { bytes })) => too_long(bytes, max_line),
                    Err(e) => {
                        read_failed(e);
                        break;
                    }
                }
            }
        });
    if let Err(e) = spawned {
        eprintln!("Error: cannot start the stdin reader: {e}");
    }
}

/// Input ends here: the loop learns it when the sender is dropped.
fn read_failed(e: io::Error) {
    eprintln!("Error reading stdin: {e}");
}

fn too_long(bytes: u64, max_line: u64) {
    eprintln!(
        "Error: an input line of {bytes} bytes is over the limit of {max_line} bytes \
         (DCL_MAX_LINE_BYTES); it was discarded"
    );
}
