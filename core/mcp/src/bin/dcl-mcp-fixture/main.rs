//! `dcl-mcp-fixture`: an MCP stdio server for dcl-mcp's tests, written with rmcp's server side.
//!
//! Flags: `--banner` prints a non-JSON line on stdout first (servers that log to stdout);
//! `--fail-start` writes to stderr and exits 2 at once; `--hang` never answers `initialize`.

mod handler;

use rmcp::ServiceExt;

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let has = |f: &str| args.iter().any(|a| a == f);
    if has("--fail-start") {
        eprintln!("fixture: refusing to start (--fail-start)");
        std::process::exit(2);
    }
    if has("--hang") {
        loop {
            tokio::time::sleep(std::time::Duration::from_secs(3600)).await;
        }
    }
    if has("--banner") {
        println!("fixture banner: this line is not JSON-RPC");
    }
    let server = handler::Fixture {
        process_tools: true,
    };
    match server
        .serve((tokio::io::stdin(), tokio::io::stdout()))
        .await
    {
        Ok(running) => {
            let _ = running.waiting().await;
        }
        Err(e) => {
            eprintln!("fixture: {e}");
            std::process::exit(1);
        }
    }
}
