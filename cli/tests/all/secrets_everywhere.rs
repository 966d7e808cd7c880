//! The key test through the binary: with provider keys in dcl's environment, the tools
//! `env`, `printenv` and `cat /proc/self/environ` (and a settings hook printing its
//! environment) run, and no key is in their output, the stream, the transcript, any file
//! dcl wrote, or dcl's debug log.

use std::path::Path;
use std::process::Command;

use serde_json::json;

const SECRETS: &[(&str, &str)] = &[
    ("ANTHROPIC_API_KEY", "sk-ant-everywhere-111111"),
    ("OPENAI_API_KEY", "sk-openai-everywhere-222222"),
    ("MY_SERVICE_TOKEN", "tok-everywhere-333333"),
];

fn all_files(dir: &Path, out: &mut Vec<(String, String)>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            all_files(&p, out);
        } else if let Ok(text) = std::fs::read(&p) {
            out.push((
                p.display().to_string(),
                String::from_utf8_lossy(&text).into_owned(),
            ));
        }
    }
}

#[test]
fn provider_keys_reach_no_output_transcript_file_or_log() {
    let (cwd, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let hook = json!({"hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [
        {"type": "command", "command": "cat >/dev/null; env >&2; exit 1"}]}]}});
    std::fs::create_dir_all(home.path().join(".claude")).unwrap();
    std::fs::write(home.path().join(".claude/settings.json"), hook.to_string()).unwrap();
    let mut seen = String::new();
    for cmd in ["env", "printenv", "cat /proc/self/environ"] {
        let prompt = format!("FAKE_TOOL Bash {}", json!({"command": cmd}));
        let mut c = Command::new(env!("CARGO_BIN_EXE_dcl"));
        c.args([
            "-p",
            &prompt,
            "--output-format",
            "stream-json",
            "--verbose",
            "--debug-to-stderr",
            "--model",
            "mock-model",
            "--permission-mode",
            "bypassPermissions",
        ])
        .current_dir(cwd.path())
        .env("HOME", home.path())
        .env("PLAIN_VISIBLE", "plain-value-ok")
        .env_remove("DCL_CONFIG_DIR")
        .env_remove("CLAUDE_CONFIG_DIR");
        for (k, v) in SECRETS {
            c.env(k, v);
        }
        let out = c.output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        // Twins: the tool ran and printed the environment; the hook ran and was reported;
        // the debug log is on.
        assert!(stdout.contains("plain-value-ok"), "{cmd}: {stdout}");
        assert!(
            stdout.contains("PostToolUse:Bash hook error"),
            "{cmd}: {stdout}"
        );
        assert!(!stderr.is_empty(), "{cmd}: no debug log");
        seen.push_str(&stdout);
        seen.push_str(&stderr);
    }
    let mut files = Vec::new();
    all_files(home.path(), &mut files);
    all_files(cwd.path(), &mut files);
    let transcripts: Vec<_> = files
        .iter()
        .filter(|(p, _)| p.ends_with(".jsonl"))
        .collect();
    assert!(
        !transcripts.is_empty(),
        "no transcript was written: {files:?}"
    );
    assert!(
        transcripts
            .iter()
            .any(|(_, t)| t.contains("plain-value-ok")),
        "the transcripts do not hold the tool output"
    );
    for (_, secret) in SECRETS {
        assert!(!seen.contains(secret), "{secret} in the stream or the log");
        for (path, text) in &files {
            assert!(!text.contains(secret), "{secret} in {path}");
        }
    }
}
