//! A session whose model writes to a FIFO: the tool fails at once with a clear error
//! and the turn still ends with a result (before, the write blocked the session forever
//! and neither `interrupt` nor EOF could end it).

use crate::common;

use std::os::unix::fs::FileTypeExt;

use common::{prompt, until_result};
use dcl_engine::{Session, SessionOptions};
use serde_json::Value;

/// A runtime that does not wait for its blocking threads when dropped: were a tool
/// still blocked on the FIFO, the test must fail, not hang on shutdown.
struct Rt(Option<tokio::runtime::Runtime>);

impl Rt {
    fn new() -> Rt {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        Rt(Some(rt))
    }

    fn block_on<F: std::future::Future>(&self, f: F) -> F::Output {
        self.0.as_ref().unwrap().block_on(f)
    }
}

impl Drop for Rt {
    fn drop(&mut self) {
        if let Some(rt) = self.0.take() {
            rt.shutdown_background();
        }
    }
}

fn mock_session(cwd: &std::path::Path) -> Session {
    let opts = SessionOptions {
        cwd: Some(cwd.to_path_buf()),
        model: Some("mock-model".into()),
        permission_mode: Some("bypassPermissions".into()),
        ..Default::default()
    };
    Session::spawn(&tokio::runtime::Handle::current(), opts).unwrap()
}

fn tool_results(seen: &[Value]) -> Vec<&Value> {
    seen.iter()
        .filter(|v| v["type"] == "user")
        .filter_map(|v| v["message"]["content"].as_array())
        .flatten()
        .filter(|b| b["type"] == "tool_result")
        .collect()
}

fn make_fifo(dir: &std::path::Path) -> std::path::PathBuf {
    let fifo = dir.join("pipe");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
    fifo
}

#[test]
fn writing_to_a_fifo_is_an_error_result_and_the_turn_ends() {
    Rt::new().block_on(write_to_fifo());
}

async fn write_to_fifo() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = make_fifo(dir.path());
    let session = mock_session(dir.path());
    let input = serde_json::json!({"file_path": fifo.display().to_string(), "content": "x"});
    session
        .send(prompt(&format!("FAKE_TOOL Write {input}")))
        .unwrap();
    // `until_result` fails after 20 s without a line: a blocked write cannot pass.
    let (seen, result) = until_result(&session).await;
    let results = tool_results(&seen);
    assert_eq!(results.len(), 1, "{seen:#?}");
    assert_eq!(results[0]["is_error"], true, "{:?}", results[0]);
    let text = results[0]["content"].to_string();
    assert!(text.contains("is a FIFO (named pipe)"), "{text}");
    assert_eq!(result["type"], "result");
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());

    // The session goes on: the next turn is answered too.
    session.send(prompt("hello")).unwrap();
    let (_, next) = until_result(&session).await;
    assert_eq!(next["subtype"], "success", "{next}");
}

#[test]
fn reading_a_fifo_says_what_it_is() {
    Rt::new().block_on(read_fifo());
}

async fn read_fifo() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = make_fifo(dir.path());
    let session = mock_session(dir.path());
    session
        .send(prompt(&format!("FAKE_READ {}", fifo.display())))
        .unwrap();
    let (seen, result) = until_result(&session).await;
    let results = tool_results(&seen);
    assert_eq!(results.len(), 1, "{seen:#?}");
    let text = results[0]["content"].to_string();
    assert!(text.contains("is a FIFO (named pipe)"), "{text}");
    assert_eq!(result["subtype"], "success", "{result}");
}
