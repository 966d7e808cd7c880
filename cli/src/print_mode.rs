//! `dcl -p "<prompt>"`: one turn for people and scripts, with text, json or stream-json output.

use std::io::{IsTerminal, Read, Write};
use std::process::ExitCode;

use dcl_bridge::SessionOptions;
use dcl_bridge::argv::OutputFormat;
use dcl_protocol::{Message, MessageContent, UserMessage};

use dcl_bridge::argv::Args;

use crate::error::CliError;

pub fn run(args: &Args, opts: SessionOptions, output: OutputFormat) -> Result<ExitCode, CliError> {
    let prompt = if args.positionals.is_empty() {
        // A prompt piped in with neither `-p` nor `--input-format` is a print-mode run, as
        // with the reference (SDKs' one-shot helpers do this); only a terminal on stdin
        // with stdout not one (the interactive mode needs both) has no prompt to read.
        if !args.has("-p") && !args.has("--print") && std::io::stdin().is_terminal() {
            return Err(CliError::NoPrompt);
        }
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(CliError::ReadPrompt)?;
        text
    } else {
        args.positionals.join(" ")
    };
    if prompt.trim().is_empty() {
        return Err(CliError::EmptyPrompt);
    }
    let rt = dcl_bridge::runtime()?;
    let bridge = dcl_bridge::open_with(opts)?;
    bridge.send_message(Message::User(UserMessage::new(MessageContent::Text(
        prompt,
    ))))?;
    bridge.end_input();
    let stdout = std::io::stdout();
    let mut last = None;
    rt.block_on(async {
        while let Some(m) = bridge.recv_message().await {
            if output == OutputFormat::StreamJson && !is_legacy_or_control(&m) {
                // A closed stdout ends nothing here: the result below still decides the exit.
                let _ = crate::stdout::write_line(&m);
            }
            if let Message::Result(r) = m {
                last = Some(r);
            }
        }
    });
    let Some(result) = last else {
        return Err(CliError::NoResult);
    };
    match output {
        OutputFormat::Text => {
            let text = result
                .result
                .clone()
                .unwrap_or_else(|| result.errors.clone().unwrap_or_default().join("; "));
            let mut out = stdout.lock();
            let _ = writeln!(out, "{text}");
        }
        OutputFormat::Json => {
            let line = dcl_protocol::to_line(&Message::Result(result.clone()));
            let mut out = stdout.lock();
            let _ = writeln!(out, "{line}");
        }
        OutputFormat::StreamJson => {}
    }
    Ok(if result.is_error {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// `-p` stream-json prints the conversation only: no control traffic.
fn is_legacy_or_control(m: &Message) -> bool {
    matches!(
        m,
        Message::ControlRequest(_) | Message::ControlResponse(_) | Message::ControlCancelRequest(_)
    )
}
