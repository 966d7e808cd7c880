//! Prints the JSON Schema of the dcl stream-json protocol to stdout.

use std::io::Write;
use std::process::ExitCode;

fn main() -> ExitCode {
    let doc = dcl_protocol::schema::schema_document();
    let text = match serde_json::to_string_pretty(&doc) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("export-schema: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut out = std::io::stdout().lock();
    match writeln!(out, "{text}").and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("export-schema: {e}");
            ExitCode::FAILURE
        }
    }
}
