//! `dcl acp`: dcl as an Agent Client Protocol agent on stdin/stdout (JSON-RPC 2.0, one
//! message a line; logs on stderr). One process serves many sessions, each a dcl session
//! opened through the bridge on the bridge's one runtime.
//!
//! Each session is read as dcl's typed events ([`dcl_bridge::events::AgentEvent`]):
//! `session/update` is their projection ([`projection`]), and what the client does
//! reaches the session as [`dcl_bridge::events::SessionCommand`]s.

mod agent;
pub mod auth;
mod client_files;
mod error;
mod history;
mod mcp_approval;
mod modes;
mod permission;
pub mod projection;
mod prompt;
mod session;
mod update;

use std::collections::BTreeMap;
use std::sync::Arc;

use agent_client_protocol::v1::schema::{
    AuthenticateRequest, CancelNotification, CloseSessionRequest, ForkSessionRequest,
    InitializeRequest, ListSessionsRequest, LoadSessionRequest, NewSessionRequest, PromptRequest,
    ResumeSessionRequest, SetSessionConfigOptionRequest, SetSessionModeRequest,
};
use agent_client_protocol::{ByteStreams, on_receive_notification, on_receive_request};
use dcl_bridge::argv::{Args, OutputFormat, session_options};
use tokio_util::compat::{TokioAsyncReadCompatExt, TokioAsyncWriteCompatExt};

use crate::agent::{Agent, answer_later};
pub use crate::error::AcpError;

/// `dcl acp [flags]`: the flags are dcl's own (`--model`, `--permission-mode`,
/// `--settings`, …) and apply to every session; serves until the client closes stdin.
pub fn run(argv: Vec<String>) -> Result<(), AcpError> {
    let args = Args::parse(argv);
    let env: BTreeMap<String, String> = std::env::vars().collect();
    let mut template = session_options(&args, env, OutputFormat::StreamJson, true)?;
    // The client is asked through session/request_permission.
    template.permission_prompt_tool = None;
    template.non_interactive = false;
    let rt = dcl_bridge::runtime()?;
    rt.block_on(serve(Agent::new(template)))
}

/// `dcl auth status [--json]` (see [`auth`]): what to print, and the exit code's success.
pub fn auth_status(argv: &[String]) -> (String, bool) {
    let env: BTreeMap<String, String> = std::env::vars().collect();
    let (status, ok) = auth::status(&env);
    let out = if argv.iter().any(|a| a == "--json") {
        status.to_string()
    } else {
        auth::text(&status)
    };
    (out, ok)
}

async fn serve(agent: Arc<Agent>) -> Result<(), AcpError> {
    let transport = ByteStreams::new(
        tokio::io::stdout().compat_write(),
        tokio::io::stdin().compat(),
    );
    let served = {
        let a1 = Arc::clone(&agent);
        let a2 = Arc::clone(&agent);
        let a3 = Arc::clone(&agent);
        let a4 = Arc::clone(&agent);
        let a5 = Arc::clone(&agent);
        let a6 = Arc::clone(&agent);
        let a7 = Arc::clone(&agent);
        let a8 = Arc::clone(&agent);
        let a9 = Arc::clone(&agent);
        let a10 = Arc::clone(&agent);
        let a11 = Arc::clone(&agent);
        let a12 = Arc::clone(&agent);
        agent_client_protocol::Agent
            .v1()
            .name("dcl")
            .on_receive_request(
                async move |req: InitializeRequest, responder, _cx| {
                    responder.respond_with_result(a1.initialize(req))
                },
                on_receive_request!(),
            )
            .on_receive_request(
                async move |req: AuthenticateRequest, responder, _cx| {
                    responder.respond_with_result(a2.authenticate(req))
                },
                on_receive_request!(),
            )
            .on_receive_request(
                async move |req: NewSessionRequest, responder, cx| {
                    answer_later(responder, Arc::clone(&a3).new_session(req, cx))
                },
                on_receive_request!(),
            )
            .on_receive_request(
                async move |req: LoadSessionRequest, responder, cx| {
                    answer_later(responder, Arc::clone(&a8).load_session(req, cx))
                },
                on_receive_request!(),
            )
            .on_receive_request(
                async move |req: ResumeSessionRequest, responder, cx| {
                    answer_later(responder, Arc::clone(&a11).resume_session(req, cx))
                },
                on_receive_request!(),
            )
            .on_receive_request(
                async move |req: ForkSessionRequest, responder, cx| {
                    answer_later(responder, Arc::clone(&a12).fork_session(req, cx))
                },
                on_receive_request!(),
            )
            .on_receive_request(
                async move |req: PromptRequest, responder, _cx| {
                    answer_later(responder, a4.prompt(req))
                },
                on_receive_request!(),
            )
            .on_receive_request(
                async move |req: SetSessionModeRequest, responder, cx| {
                    answer_later(responder, Arc::clone(&a5).set_mode(req, cx))
                },
                on_receive_request!(),
            )
            .on_receive_request(
                async move |req: CloseSessionRequest, responder, _cx| {
                    responder.respond_with_result(a6.close_session(req))
                },
                on_receive_request!(),
            )
            .on_receive_request(
                async move |req: ListSessionsRequest, responder, _cx| {
                    answer_later(responder, Arc::clone(&a9).list_sessions(req))
                },
                on_receive_request!(),
            )
            .on_receive_request(
                async move |req: SetSessionConfigOptionRequest, responder, _cx| {
                    answer_later(responder, Arc::clone(&a10).set_config_option(req))
                },
                on_receive_request!(),
            )
            .on_receive_notification(
                async move |n: CancelNotification, _cx| {
                    a7.cancel(n);
                    Ok(())
                },
                on_receive_notification!(),
            )
            .connect_to(transport)
            .await
    };
    agent.close_all().await;
    match served {
        Ok(()) => Ok(()),
        // The client closed its end while an update was on its way: the end of the
        // connection, not a failure (the crate keeps only the I/O error's text).
        Err(e) if e.to_string().contains("Broken pipe") => {
            tracing::debug!("the client left: {e}");
            Ok(())
        }
        Err(e) => Err(AcpError::Connection(e)),
    }
}
