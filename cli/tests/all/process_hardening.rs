//! The `dcl` process is not dumpable: a tool it runs (same user) cannot read dcl's own
//! `/proc/<pid>/environ`, where the API key it withholds from tools lives.

#![cfg(target_os = "linux")]

use std::process::Command;

use serde_json::{Value, json};

const KEY: &str = "sk-ant-dumpable-test-777";

/// dcl and its tool must share an ordinary uid (root may read any process): as root the
/// run drops to `nobody` with `setpriv`.
fn dcl_command() -> Command {
    let uid = Command::new("id").arg("-u").output().unwrap().stdout;
    if String::from_utf8_lossy(&uid).trim() == "0" {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(env!("CARGO_BIN_EXE_dcl"));
        c
    } else {
        Command::new(env!("CARGO_BIN_EXE_dcl"))
    }
}

fn open_dir() -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let d = tempfile::tempdir().unwrap();
    std::fs::set_permissions(d.path(), std::fs::Permissions::from_mode(0o777)).unwrap();
    d
}

fn tool_output(command: &str) -> String {
    let (cwd, home) = (open_dir(), open_dir());
    let prompt = format!("FAKE_TOOL Bash {}", json!({"command": command}));
    let out = dcl_command()
        .args([
            "-p",
            &prompt,
            "--output-format",
            "stream-json",
            "--verbose",
            "--model",
            "mock-model",
            "--permission-mode",
            "bypassPermissions",
        ])
        .current_dir(cwd.path())
        .env("HOME", home.path())
        .env("ANTHROPIC_API_KEY", KEY)
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    text.lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|l| l["type"] == "user")
        .flat_map(|l| {
            l["message"]["content"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .find(|b| b["type"] == "tool_result")
        .map(|b| b["content"].to_string())
        .unwrap_or_default()
}

/// Decodes the hex a tool printed (so output redaction cannot be what hides the key).
fn unhex(result: &str) -> String {
    let digits: String = result
        .split("HEX:")
        .nth(1)
        .unwrap_or("")
        .chars()
        .take_while(char::is_ascii_hexdigit)
        .collect();
    let bytes: Vec<u8> = (0..digits.len() / 2)
        .filter_map(|i| u8::from_str_radix(&digits[2 * i..2 * i + 2], 16).ok())
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

#[test]
fn a_tool_cannot_read_dcls_environment_through_proc() {
    // The tool's shell is dcl's child: $PPID is dcl.
    let result =
        tool_output("printf HEX:; od -An -v -tx1 /proc/$PPID/environ | tr -d ' \\n'; echo");
    assert!(!unhex(&result).contains(KEY), "{result}");
    assert!(!result.contains(KEY), "{result}");
    // Twins: $PPID is dcl (its command line is readable), and the same read of the
    // tool's own environment works (and holds no key).
    let cmdline = unhex(&tool_output(
        "printf HEX:; od -An -v -tx1 /proc/$PPID/cmdline | tr -d ' \\n'; echo",
    ));
    assert!(cmdline.contains("mock-model"), "{cmdline}");
    let own = unhex(&tool_output(
        "printf HEX:; od -An -v -tx1 /proc/self/environ | tr -d ' \\n'; echo",
    ));
    assert!(own.contains("HOME="), "{own}");
    assert!(!own.contains(KEY));
}
