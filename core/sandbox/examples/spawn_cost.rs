//! What containment and the sandbox add to starting a tool process: N runs of
//! `bash -c true` plain, contained, contained in a scope, and sandboxed, side by side.
//! `cargo run --release -p dcl-sandbox --example spawn_cost [N]`

use std::os::unix::process::CommandExt as _;
use std::process::{Command, Stdio};
use std::time::Instant;

/// One way of starting the command: a name and what it does to the `Command`.
type Variant<'a> = (&'a str, &'a dyn Fn(&mut Command));

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let n: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200);
    let dir = tempfile::tempdir()?;
    let settings = dcl_sandbox::SandboxSettings {
        enabled: true,
        ..Default::default()
    };
    let sandbox = dcl_sandbox::Sandbox::new(settings, dir.path(), &[], None)?;
    let scope = dcl_sandbox::Scope::new()?;
    println!("support: {:?}", dcl_sandbox::probe::support());
    let variants: [Variant; 4] = [
        ("plain", &|_| {}),
        ("contained", &|c| {
            dcl_sandbox::apply(c, None);
        }),
        ("contained, scoped", &|c| {
            dcl_sandbox::apply_scoped(c, None, &scope);
        }),
        ("sandboxed, scoped", &|c| {
            dcl_sandbox::apply_scoped(c, Some(&sandbox), &scope);
        }),
    ];
    for (name, hook) in variants {
        let start = Instant::now();
        for _ in 0..n {
            let mut cmd = Command::new("bash");
            cmd.arg("-c")
                .arg("true")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .process_group(0);
            hook(&mut cmd);
            let status = cmd.status()?;
            if !status.success() {
                return Err(format!("{name}: {status}").into());
            }
        }
        let per = start.elapsed() / n;
        println!("{name:<20} {per:>10.2?} per spawn+wait ({n} runs)");
    }
    Ok(())
}
