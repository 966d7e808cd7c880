//! Prints the JSON Schema of the session options JSON ([`dcl_bridge::options_schema`]).

use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let text = match serde_json::to_string_pretty(&dcl_bridge::options_schema()) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("export-options-schema: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{text}").and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("export-options-schema: {e}");
            ExitCode::FAILURE
        }
    }
}
