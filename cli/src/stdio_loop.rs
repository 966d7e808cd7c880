//! The stream-json loop: stdin lines → `Bridge::send`, `Bridge::recv` → stdout lines.
//!
//! A dedicated thread owns stdin so shutdown never blocks on a read; SIGTERM or SIGINT
//! cancels the running turn (killing its tools) and exits within a second.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use std::collections::HashMap;

use dcl_bridge::SessionOptions;
use dcl_bridge::options::DEFAULT_MAX_LINE_BYTES;
use dcl_bridge::{Bridge, BridgeError};
use dcl_protocol::{
    ControlRequestEnvelope, ControlResponse, ControlResponseEnvelope, InitializeRequest, Message,
};
use serde_json::{Value, json};
use tokio::sync::{mpsc, oneshot};

use crate::awaiting;
use crate::error::{ClaimError, CliError};

#[cfg(unix)]
use crate::nonblocking;
use crate::stdin;
use crate::stdout::{self, push_line, write_line_async, write_text_async};

pub fn run(opts: SessionOptions) -> Result<ExitCode, CliError> {
    let max_line = opts.max_line_bytes.unwrap_or(DEFAULT_MAX_LINE_BYTES);
    // Bounded: a host that writes faster than the session reads waits in its pipe.
    let (line_tx, line_rx) = mpsc::channel::<String>(64);
    let rt = dcl_bridge::runtime()?;
    let _runtime = rt.enter();
    stdout::use_nonblocking();
    stdin::start(line_tx, max_line);
    let served = if opts.await_initialize || opts.await_claim {
        Ok(rt.block_on(serve_awaiting(opts, line_rx)))
    } else {
        dcl_bridge::open_with(opts)
            .map(|bridge| rt.block_on(serve(Front::new(Arc::new(bridge)), line_rx, None)))
            .map_err(CliError::from)
    };
    #[cfg(unix)]
    nonblocking::restore();
    served
}

/// The session the host talks to, and the task writing its lines to stdout.
struct Front {
    bridge: Arc<Bridge>,
    writer: tokio::task::JoinHandle<bool>,
    /// Answers to requests the front end made itself, taken off the output.
    own: Arc<OwnRequests>,
}

type OwnRequests = std::sync::Mutex<HashMap<String, oneshot::Sender<ControlResponse>>>;

impl Front {
    fn new(bridge: Arc<Bridge>) -> Front {
        let own = Arc::new(OwnRequests::default());
        let writer = tokio::spawn(write_output(bridge.clone(), own.clone()));
        Front {
            bridge,
            writer,
            own,
        }
    }
}

/// `--await-initialize` / `--await-claim`: lines are held until `initialize` arrives; the
/// session is then opened with what it delivers, and is fed the held lines in order.
async fn serve_awaiting(mut opts: SessionOptions, mut lines: mpsc::Receiver<String>) -> ExitCode {
    let mut sigterm = crate::signals::Signal::terminate();
    let mut sigint = crate::signals::Signal::interrupt();
    let mut held = Vec::new();
    let mut init = None;
    let mut ended = false;
    while init.is_none() && !ended {
        tokio::select! {
            line = lines.recv() => match line {
                Some(line) => match awaiting::initialize_in(&line) {
                    Some(Ok(i)) => init = Some(i),
                    Some(Err((id, e))) => {
                        write_line_async(&Message::ControlResponse(ControlResponseEnvelope {
                            response: ControlResponse::error(id, e),
                            extra: Default::default(),
                        }))
                        .await;
                    }
                    None => held.push(line),
                },
                None => ended = true,
            },
            _ = sigterm.recv() => return ExitCode::from(143),
            _ = sigint.recv() => return ExitCode::from(143),
        }
    }
    if let Some(i) = &init
        && let Err(e) = dcl_bridge::options::delivery::absorb_initialize(&mut opts, &i.request)
    {
        return refuse_initialize(&i.request_id, &e.to_string()).await;
    }
    let spare = init.as_ref().filter(|_| opts.await_claim).map(|i| Spare {
        options: opts.clone(),
        initialize: i.request.clone(),
        parked: i.at,
    });
    let bridge = match dcl_bridge::open_with(opts) {
        Ok(b) => Arc::new(b),
        Err(e) => {
            return match &init {
                Some(i) => refuse_initialize(&i.request_id, &e.to_string()).await,
                None => {
                    eprintln!("Error: {e}");
                    ExitCode::from(1)
                }
            };
        }
    };
    if let Some(i) = init {
        held.push(i.line);
    }
    for line in &held {
        feed(&bridge, line).await;
    }
    let front = Front::new(bridge);
    if ended {
        front.bridge.end_input();
    }
    serve(front, lines, spare).await
}

/// Answers `initialize` with an error (the session could not be opened) and exits 1.
async fn refuse_initialize(request_id: &str, error: &str) -> ExitCode {
    eprintln!("Error: {error}");
    respond(ControlResponse::error(request_id, error)).await;
    ExitCode::from(1)
}

/// A prewarmed spare waiting for `claim_session`.
struct Spare {
    options: SessionOptions,
    initialize: InitializeRequest,
    parked: std::time::Instant,
}

async fn serve(
    mut front: Front,
    mut lines: mpsc::Receiver<String>,
    mut spare: Option<Spare>,
) -> ExitCode {
    let mut sigterm = crate::signals::Signal::terminate();
    let mut sigint = crate::signals::Signal::interrupt();
    let mut input_open = true;
    loop {
        tokio::select! {
            line = lines.recv(), if input_open => match line {
                Some(line) => {
                    if spare.is_some()
                        && let Some(req) = awaiting::control_request(&line, "claim_session")
                        && let Some(s) = spare.take()
                    {
                        front = claim(front, s, req).await;
                        continue;
                    }
                    feed(&front.bridge, &line).await
                }
                None => {
                    input_open = false;
                    front.bridge.end_input();
                }
            },
            _ = sigterm.recv() => return shutdown(&front.bridge, front.writer).await,
            _ = sigint.recv() => return shutdown(&front.bridge, front.writer).await,
            done = &mut front.writer => {
                return match done {
                    Ok(last_error) => exit_code(last_error),
                    Err(_) => ExitCode::from(1),
                };
            }
        }
    }
}

/// `claim_session`: the spare session is closed unused and the claimed one opened in its
/// place and initialized with the spare's request; the claim's answer carries that answer.
/// A claim that cannot be honoured is an `error` answer and the spare stays in service.
async fn claim(front: Front, spare: Spare, req: ControlRequestEnvelope) -> Front {
    let parsed: Result<awaiting::ClaimSession, _> = serde_json::from_value(req.request.clone());
    let planned = parsed
        .map_err(ClaimError::Malformed)
        .and_then(|c| awaiting::claimed_options(&spare.options, &c).map(|o| (c, o)));
    let (claim, (options, mut warnings)) = match planned {
        Ok(p) => p,
        Err(e) => {
            respond(ControlResponse::error(req.request_id, e.to_string())).await;
            return front;
        }
    };
    let cwd = options.cwd.clone();
    let bridge = match dcl_bridge::open_with(options) {
        Ok(b) => Arc::new(b),
        Err(e) => {
            respond(ControlResponse::error(
                req.request_id,
                format!("claim_session: the claimed session cannot open: {e}"),
            ))
            .await;
            return front;
        }
    };
    // The spare never ran a turn; nothing it would still say concerns the host.
    front.bridge.close();
    front.writer.abort();
    let next = Front::new(bridge);
    let mut init = spare.initialize;
    let mut names = init.sdk_mcp_servers.take().unwrap_or_default();
    names.extend(claim.sdk_mcp_servers.iter().cloned());
    names.sort();
    names.dedup();
    init.sdk_mcp_servers = (!names.is_empty()).then_some(names);
    let own_id = format!("dcl-claim-{}", uuid::Uuid::new_v4());
    let (tx, rx) = oneshot::channel();
    if let Ok(mut own) = next.own.lock() {
        own.insert(own_id.clone(), tx);
    }
    let sent = serde_json::to_value(&init)
        .map_err(ClaimError::EncodeInitialize)
        .and_then(|mut v| {
            if let Value::Object(m) = &mut v {
                m.insert("subtype".into(), Value::String("initialize".into()));
            }
            next.bridge
                .send_message(Message::ControlRequest(ControlRequestEnvelope::new(
                    own_id, v,
                )))
                .map_err(ClaimError::SendInitialize)
        });
    let answered = match sent {
        Ok(()) => rx.await.map_err(|_| ClaimError::Ended),
        Err(e) => Err(e),
    };
    let initialize = match answered {
        Ok(ControlResponse::Success { response, .. }) => response.unwrap_or(Value::Null),
        Ok(ControlResponse::Error { error, .. }) => {
            respond(ControlResponse::error(
                req.request_id,
                format!("claim_session: initialize failed: {error}"),
            ))
            .await;
            return next;
        }
        Err(e) => {
            respond(ControlResponse::error(req.request_id, e.to_string())).await;
            return next;
        }
    };
    if let Some(Value::Array(w)) = initialize.get("warnings") {
        warnings.extend(w.iter().filter_map(Value::as_str).map(str::to_string));
    }
    let mut answer = serde_json::Map::new();
    answer.insert(
        "cwd".into(),
        json!(cwd.map(|c| c.display().to_string()).unwrap_or_default()),
    );
    answer.insert("session_id".into(), json!(next.bridge.session_id()));
    answer.insert(
        "parked_ms".into(),
        json!(spare.parked.elapsed().as_millis() as u64),
    );
    // The claimed session's host servers connect as its turns need them (dcl does not
    // wait for them here).
    answer.insert("sdk_mcp_settled".into(), json!(false));
    if claim.include_initialize {
        answer.insert("initialize".into(), initialize);
    }
    if !warnings.is_empty() {
        answer.insert("warnings".into(), json!(warnings));
    }
    respond(ControlResponse::success(
        req.request_id,
        Some(Value::Object(answer)),
    ))
    .await;
    next
}

/// A control response the front end answers itself.
async fn respond(response: ControlResponse) {
    write_line_async(&Message::ControlResponse(ControlResponseEnvelope {
        response,
        extra: Default::default(),
    }))
    .await;
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

/// Writes every outbound line; returns whether the last result was an error. Answers to
/// the front end's own requests are handed to their waiter instead. The lines that are
/// ready together leave in one `write`: the host wakes once for them.
async fn write_output(bridge: Arc<Bridge>, own: Arc<OwnRequests>) -> bool {
    let mut last_error = false;
    loop {
        let batch = bridge.recv_messages(64).await;
        if batch.is_empty() {
            break;
        }
        // A new buffer each batch: one huge line is not kept for the rest of the session.
        let mut out = String::new();
        for message in batch {
            if let Message::ControlResponse(env) = &message {
                let waiter = own
                    .lock()
                    .ok()
                    .and_then(|mut o| o.remove(env.response.request_id()));
                if let Some(tx) = waiter {
                    let _ = tx.send(env.response.clone());
                    continue;
                }
            }
            if let Message::Result(r) = &message {
                last_error = r.is_error;
            }
            push_line(&mut out, &message);
        }
        if !write_text_async(&out).await {
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
