//! The editor's files (`fs/read_text_file`, `fs/write_text_file`) as dcl's client file
//! access, when the client offers them in `initialize`: Read, Write and Edit then see the
//! editor's buffers and the editor records every write. dcl's permission phase runs
//! first, as without it (see `dcl_bridge::ClientFiles`).

use std::path::Path;

use agent_client_protocol::Client;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{ReadTextFileRequest, WriteTextFileRequest};
use dcl_bridge::{ClientFiles, ClientFilesError};
use serde_json::{Value, json};

/// What the client said it can do with files and terminals (`clientCapabilities`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FsCapabilities {
    pub read: bool,
    pub write: bool,
    pub terminal: bool,
}

impl FsCapabilities {
    /// From the `clientCapabilities` of `initialize` (their JSON).
    pub fn of(client_capabilities: &Value) -> Self {
        let fs = &client_capabilities["fs"];
        FsCapabilities {
            read: fs["readTextFile"].as_bool() == Some(true),
            write: fs["writeTextFile"].as_bool() == Some(true),
            terminal: client_capabilities["terminal"].as_bool() == Some(true),
        }
    }

    pub fn any(self) -> bool {
        self.read || self.write
    }
}

pub struct EditorFiles {
    pub cx: ConnectionTo<Client>,
    pub session_id: String,
    pub can: FsCapabilities,
}

fn refused(e: agent_client_protocol::Error) -> ClientFilesError {
    let v = serde_json::to_value(&e).unwrap_or(Value::Null);
    // RESOURCE_NOT_FOUND: the editor has no such file.
    if v["code"] == json!(-32002) {
        ClientFilesError::NotFound
    } else {
        ClientFilesError::Refused(e.to_string())
    }
}

impl ClientFiles for EditorFiles {
    fn reads(&self) -> bool {
        self.can.read
    }

    fn writes(&self) -> bool {
        self.can.write
    }

    fn read_text_file<'a>(
        &'a self,
        path: &'a Path,
    ) -> dcl_bridge::BoxFuture<'a, Result<String, ClientFilesError>> {
        Box::pin(async move {
            let request: ReadTextFileRequest =
                serde_json::from_value(json!({"sessionId": self.session_id, "path": path}))
                    .map_err(|e| ClientFilesError::Refused(e.to_string()))?;
            let response = self
                .cx
                .send_request(request)
                .block_task()
                .await
                .map_err(refused)?;
            Ok(response.content)
        })
    }

    fn write_text_file<'a>(
        &'a self,
        path: &'a Path,
        content: &'a str,
    ) -> dcl_bridge::BoxFuture<'a, Result<(), ClientFilesError>> {
        Box::pin(async move {
            let request: WriteTextFileRequest = serde_json::from_value(
                json!({"sessionId": self.session_id, "path": path, "content": content}),
            )
            .map_err(|e| ClientFilesError::Refused(e.to_string()))?;
            self.cx
                .send_request(request)
                .block_task()
                .await
                .map_err(refused)?;
            Ok(())
        })
    }
}

/// The editor's terminal (`terminal/create`, `wait_for_exit`, `output`, `kill`,
/// `release`): Bash runs there, shown live in its tool call, when the client offers
/// `clientCapabilities.terminal`.
pub struct EditorTerminal {
    pub cx: ConnectionTo<Client>,
    pub session_id: String,
}

/// Bytes of output the editor keeps for the model (the rest is cut from the start).
const OUTPUT_BYTE_LIMIT: u64 = 1024 * 1024;

impl EditorTerminal {
    async fn ask<R>(&self, params: Value) -> Result<R::Response, ClientFilesError>
    where
        R: agent_client_protocol::JsonRpcRequest + serde::de::DeserializeOwned,
    {
        let request: R =
            serde_json::from_value(params).map_err(|e| ClientFilesError::Refused(e.to_string()))?;
        self.cx
            .send_request(request)
            .block_task()
            .await
            .map_err(refused)
    }

    async fn run_inner(
        &self,
        tool_call_id: &str,
        command: &str,
        cwd: &Path,
        env: Vec<(String, String)>,
        timeout: std::time::Duration,
        cancel: tokio_util::sync::CancellationToken,
    ) -> Result<dcl_bridge::TerminalRun, ClientFilesError> {
        use agent_client_protocol::v1::schema::{
            CreateTerminalRequest, KillTerminalRequest, ReleaseTerminalRequest,
            TerminalOutputRequest, WaitForTerminalExitRequest,
        };
        let env: Vec<Value> = env
            .into_iter()
            .map(|(name, value)| json!({"name": name, "value": value}))
            .collect();
        let created = self
            .ask::<CreateTerminalRequest>(json!({
                "sessionId": self.session_id, "command": "bash", "args": ["-c", command],
                "env": env, "cwd": cwd, "outputByteLimit": OUTPUT_BYTE_LIMIT,
            }))
            .await?;
        let terminal = created.terminal_id.to_string();
        let ids = json!({"sessionId": self.session_id, "terminalId": terminal});
        // The editor shows the terminal inside the call as it runs.
        crate::update::send_update(
            &self.cx,
            &self.session_id,
            json!({"sessionUpdate": "tool_call_update", "toolCallId": tool_call_id,
                "status": "in_progress",
                "content": [{"type": "terminal", "terminalId": terminal}]}),
        );
        let (mut timed_out, mut cancelled) = (false, false);
        tokio::select! {
            exited = self.ask::<WaitForTerminalExitRequest>(ids.clone()) => { exited?; }
            _ = tokio::time::sleep(timeout) => timed_out = true,
            _ = cancel.cancelled() => cancelled = true,
        }
        if timed_out || cancelled {
            self.ask::<KillTerminalRequest>(ids.clone()).await?;
        }
        let output = self.ask::<TerminalOutputRequest>(ids.clone()).await;
        // Released whatever the output gave, so the editor frees the terminal.
        if let Err(e) = self.ask::<ReleaseTerminalRequest>(ids).await {
            tracing::debug!("terminal {terminal} not released: {e}");
        }
        let output = output?;
        let exit = serde_json::to_value(&output.exit_status).unwrap_or(Value::Null);
        Ok(dcl_bridge::TerminalRun {
            output: output.output,
            exit_code: exit["exitCode"]
                .as_i64()
                .and_then(|c| i32::try_from(c).ok()),
            timed_out,
            cancelled,
        })
    }
}

impl dcl_bridge::ClientTerminal for EditorTerminal {
    fn run<'a>(
        &'a self,
        tool_call_id: &'a str,
        command: &'a str,
        cwd: &'a Path,
        env: Vec<(String, String)>,
        timeout: std::time::Duration,
        cancel: tokio_util::sync::CancellationToken,
    ) -> dcl_bridge::BoxFuture<'a, Result<dcl_bridge::TerminalRun, ClientFilesError>> {
        Box::pin(self.run_inner(tool_call_id, command, cwd, env, timeout, cancel))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capabilities_are_read_from_initialize() {
        let both =
            FsCapabilities::of(&json!({"fs": {"readTextFile": true, "writeTextFile": true}}));
        assert!(both.read && both.write);
        let none = FsCapabilities::of(&json!({}));
        assert!(!none.any());
        let read = FsCapabilities::of(&json!({"fs": {"readTextFile": true}}));
        assert!(read.read && !read.write && !read.terminal);
        assert!(FsCapabilities::of(&json!({"terminal": true})).terminal);
    }
}
