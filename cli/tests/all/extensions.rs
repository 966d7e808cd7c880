//! Skills, custom slash commands and plugins through the `dcl` binary: on the mock model
//! (which calls the tool a prompt names) and on a fake Anthropic server (to see what
//! reaches the model).

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A `dcl` in stream-json mode in `cwd` with `HOME` at `home`.
struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
    seen: Vec<Value>,
}

impl Session {
    fn start(cwd: &Path, home: &Path, args: &[&str], env: &[(&str, &str)]) -> Session {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_dcl"));
        cmd.args([
            "--input-format",
            "stream-json",
            "--output-format",
            "stream-json",
            "--no-legacy-events",
        ])
        .args(args)
        .current_dir(cwd)
        .env("HOME", home);
        for var in [
            "ANTHROPIC_API_KEY",
            "ANTHROPIC_BASE_URL",
            "DCL_MODEL",
            "DCL_CONFIG_DIR",
            "CLAUDE_CONFIG_DIR",
            "CLAUDE_CODE_ENTRYPOINT",
            "QODER_AGENT_SDK_ENTRYPOINT",
        ] {
            cmd.env_remove(var);
        }
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn dcl");
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Session {
            stdin: child.stdin.take(),
            child,
            lines: rx,
            seen: Vec::new(),
        }
    }

    fn send(&mut self, v: Value) {
        let stdin = self.stdin.as_mut().unwrap();
        writeln!(stdin, "{v}").unwrap();
        stdin.flush().unwrap();
    }

    fn control(&mut self, id: &str, request: Value) {
        self.send(json!({"type":"control_request","request_id":id,"request":request}));
    }

    fn user(&mut self, text: &str) {
        self.send(json!({"type":"user","message":{"role":"user","content":text},"parent_tool_use_id":null,"session_id":""}));
    }

    fn until(&mut self, pred: impl Fn(&Value) -> bool) -> Value {
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(30))
                .unwrap_or_else(|e| panic!("no expected line ({e}); seen: {:#?}", self.seen));
            let v: Value = serde_json::from_str(&line).unwrap();
            self.seen.push(v.clone());
            if pred(&v) {
                return v;
            }
        }
    }

    fn response_to(&mut self, id: &str) -> Value {
        self.until(|v| v["type"] == "control_response" && v["response"]["request_id"] == id)
    }

    fn result(&mut self) -> Value {
        self.until(|v| v["type"] == "result")
    }

    /// The text of every tool result seen so far.
    fn tool_results(&self) -> Vec<String> {
        self.seen
            .iter()
            .filter(|v| v["type"] == "user")
            .flat_map(|v| {
                v["message"]["content"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
            })
            .filter(|b| b["type"] == "tool_result")
            .map(|b| match &b["content"] {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn names(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_skill_is_listed_and_its_body_reaches_the_model() {
    let cwd = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    write(
        &cwd.path().join(".claude/skills/greet/SKILL.md"),
        "---\nname: greet\ndescription: Greets people warmly\n---\nGreet $ARGUMENTS with a poem.\n",
    );
    write(
        &home.path().join(".dcl/skills/tidy/SKILL.md"),
        "---\ndescription: Tidies up\nallowed-tools: Bash(rm -rf build)\n---\nRemove build.\n",
    );
    let mut s = Session::start(cwd.path(), home.path(), &["--model", "mock-model"], &[]);
    s.control("i", json!({"subtype": "initialize"}));
    let init = s.response_to("i");
    let commands: Vec<&str> = init["response"]["response"]["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert!(commands.contains(&"greet"), "{commands:?}");
    s.user(r#"FAKE_TOOL Skill {"skill":"greet","args":"Ada"}"#);
    let system = s.until(|v| v["type"] == "system" && v["subtype"] == "init");
    assert_eq!(names(&system["skills"]), vec!["greet", "tidy"]);
    assert!(names(&system["tools"]).contains(&"Skill".to_string()));
    let result = s.result();
    assert_eq!(result["is_error"], false, "{result}");
    let results = s.tool_results();
    let base = cwd
        .path()
        .canonicalize()
        .unwrap()
        .join(".claude/skills/greet");
    let base_plain = cwd.path().join(".claude/skills/greet");
    assert!(
        results
            .iter()
            .any(|r| (r.contains(&base.display().to_string())
                || r.contains(&base_plain.display().to_string()))
                && r.contains("Greet Ada with a poem.")),
        "{results:?}"
    );
}

#[test]
fn skill_rules_deny_and_a_granting_skill_asks() {
    let cwd = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    write(
        &cwd.path().join(".dcl/skills/greet/SKILL.md"),
        "---\ndescription: Greets\n---\nHello.\n",
    );
    write(
        &cwd.path().join(".dcl/skills/tidy/SKILL.md"),
        "---\ndescription: Tidies\nallowed-tools: Bash(touch made.txt)\n---\nTidy.\n",
    );
    let mut s = Session::start(
        cwd.path(),
        home.path(),
        &["--model", "mock-model", "--disallowedTools", "Skill(greet)"],
        &[],
    );
    s.control("i", json!({"subtype": "initialize"}));
    s.response_to("i");
    s.user(r#"FAKE_TOOL Skill {"skill":"greet"}"#);
    let r = s.result();
    assert_eq!(r["permission_denials"][0]["tool_name"], "Skill", "{r}");
    // A skill that grants tools is a decision: the host is asked.
    s.user(r#"FAKE_TOOL Skill {"skill":"tidy"}"#);
    let ask = s.until(|v| v["type"] == "control_request");
    assert_eq!(ask["request"]["subtype"], "can_use_tool");
    assert_eq!(ask["request"]["input"]["skill"], "tidy");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_custom_command_expands_its_arguments_model_and_grants_for_its_turn_only() {
    use dcl_test_support::anthropic::{FakeAnthropicServer, FakeResponse};
    use dcl_test_support::sse::SseMessage;
    let touch = || {
        FakeResponse::sse(
            SseMessage::new()
                .tool_use("t1", "Bash", json!({"command": "touch made.txt"}))
                .stop_reason("tool_use")
                .build(),
        )
    };
    let done = || FakeResponse::sse(SseMessage::new().text("done").build());
    let server = FakeAnthropicServer::start(vec![touch(), done(), touch(), done()])
        .await
        .unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    write(
        &cwd.path().join(".claude/commands/fix.md"),
        "---\ndescription: Fix an issue\nargument-hint: <issue> <priority>\nallowed-tools: Bash(touch made.txt)\nmodel: haiku\n---\nFix issue #$1 with priority $2. All: $ARGUMENTS\n",
    );
    let base = server.base_url();
    let (c, h) = (cwd.path().to_path_buf(), home.path().to_path_buf());
    let seen = tokio::task::spawn_blocking(move || {
        let mut s = Session::start(
            &c,
            &h,
            &["--model", "claude-sonnet-4-5"],
            &[
                ("ANTHROPIC_API_KEY", "sk-test"),
                ("ANTHROPIC_BASE_URL", &base),
            ],
        );
        s.control("i", json!({"subtype": "initialize"}));
        let init = s.response_to("i");
        let fix = init["response"]["response"]["commands"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == "fix")
            .cloned()
            .unwrap();
        assert_eq!(fix["description"], "Fix an issue");
        assert_eq!(fix["argumentHint"], "<issue> <priority>");
        s.user("/fix 123 high");
        let first = s.result();
        s.user("touch it again");
        let ask = s.until(|v| v["type"] == "control_request");
        assert_eq!(ask["request"]["tool_name"], "Bash");
        let id = ask["request_id"].as_str().unwrap().to_string();
        s.send(
            json!({"type":"control_response","response":{"subtype":"success","request_id":id,
            "response":{"behavior":"deny","message":"no"}}}),
        );
        let second = s.result();
        let init_line = s
            .seen
            .iter()
            .find(|v| v["type"] == "system" && v["subtype"] == "init")
            .cloned()
            .unwrap();
        (first, second, init_line, s.tool_results())
    })
    .await
    .unwrap();
    let (first, second, init_line, results) = seen;
    assert!(names(&init_line["slash_commands"]).contains(&"fix".to_string()));
    let bodies = server.message_bodies();
    assert_eq!(bodies.len(), 4, "{bodies:?}");
    let prompt = bodies[0]["messages"][0].to_string();
    assert!(
        prompt.contains("Fix issue #123 with priority high. All: 123 high"),
        "{prompt}"
    );
    assert!(
        prompt.contains("<command-name>/fix</command-name>"),
        "{prompt}"
    );
    // The command's model for its turn, the session's afterwards.
    assert_eq!(bodies[0]["model"], "claude-haiku-4-5");
    assert_eq!(bodies[1]["model"], "claude-haiku-4-5");
    assert_eq!(bodies[2]["model"], "claude-sonnet-4-5");
    // The grant let the command's Bash call run unasked; the next turn has no grant, so
    // the same call is put to the host (who denies it here).
    assert_eq!(first["permission_denials"], json!([]), "{first}");
    assert!(cwd.path().join("made.txt").exists(), "{results:?}");
    assert_eq!(
        second["permission_denials"][0]["tool_name"], "Bash",
        "{second}"
    );
}

fn plugin(dir: &Path) -> PathBuf {
    let root = dir.join("kit");
    write(
        &root.join(".claude-plugin/plugin.json"),
        r#"{"name": "kit", "version": "1.0.0", "description": "A test kit"}"#,
    );
    write(
        &root.join("commands/ask.md"),
        "---\ndescription: Ask the helper\n---\nFAKE_TOOL Agent {\"description\":\"ask\",\"prompt\":\"$ARGUMENTS\",\"subagent_type\":\"kit:helper\"}\n",
    );
    write(
        &root.join("agents/helper.md"),
        "---\nname: helper\ndescription: Helps with anything\nmodel: inherit\n---\nYou help.\n",
    );
    write(
        &root.join("skills/lint/SKILL.md"),
        "---\ndescription: Lints\n---\nRun the linter in ${CLAUDE_PLUGIN_ROOT}.\n",
    );
    root
}

#[test]
fn a_plugins_command_agent_and_skill_are_listed_and_usable() {
    let cwd = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let root = plugin(cwd.path());
    let mut s = Session::start(
        cwd.path(),
        home.path(),
        &[
            "--model",
            "mock-model",
            "--plugin-dir",
            root.to_str().unwrap(),
        ],
        &[],
    );
    s.control("i", json!({"subtype": "initialize"}));
    let init = s.response_to("i");
    let answer = &init["response"]["response"];
    assert!(
        answer["agents"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["name"] == "kit:helper" && a["description"] == "Helps with anything"),
        "{answer}"
    );
    assert_eq!(
        answer["warnings"],
        Value::Null,
        "no warning for --plugin-dir: {answer}"
    );
    s.user("/ask what is up");
    let system = s.until(|v| v["type"] == "system" && v["subtype"] == "init");
    assert!(names(&system["agents"]).contains(&"kit:helper".to_string()));
    let commands = names(&system["slash_commands"]);
    assert!(commands.contains(&"kit:ask".to_string()), "{commands:?}");
    assert!(commands.contains(&"kit:lint".to_string()), "{commands:?}");
    assert_eq!(names(&system["skills"]), vec!["kit:lint"]);
    let real = root.canonicalize().unwrap().display().to_string();
    assert_eq!(system["plugins"][0]["name"], "kit");
    assert_eq!(system["plugins"][0]["path"], real.as_str());
    assert!(system.get("plugin_errors").is_none(), "{system}");
    let result = s.result();
    assert_eq!(result["is_error"], false, "{result}");
    // The command's body made the model delegate to the plugin's agent, which answered.
    let call = s
        .seen
        .iter()
        .flat_map(|v| {
            v["message"]["content"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .find(|b| b["type"] == "tool_use" && b["name"] == "Agent")
        .unwrap();
    assert_eq!(call["input"]["subagent_type"], "kit:helper");
    assert_eq!(call["input"]["prompt"], "what is up");
    let results = s.tool_results();
    assert!(
        results
            .iter()
            .any(|r| r.contains("Hello from the fake model.")),
        "{results:?}"
    );
    s.user(r#"FAKE_TOOL Skill {"skill":"kit:lint"}"#);
    s.result();
    assert!(
        s.tool_results()
            .iter()
            .any(|r| r.contains(&format!("Run the linter in {real}."))),
        "{:?}",
        s.tool_results()
    );
}

#[test]
fn reload_plugins_reads_them_again_and_answers_the_seeds_fields() {
    let cwd = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let root = plugin(cwd.path());
    let mut s = Session::start(
        cwd.path(),
        home.path(),
        &[
            "--model",
            "mock-model",
            "--plugin-dir",
            root.to_str().unwrap(),
            "--plugin-dir",
            "missing-plugin",
        ],
        &[],
    );
    s.control("i", json!({"subtype": "initialize"}));
    let init = s.response_to("i");
    let warnings = init["response"]["response"]["warnings"].to_string();
    assert!(warnings.contains("missing-plugin"), "{warnings}");
    write(&root.join("commands/later.md"), "Added later");
    write(
        &root.join("agents/second.md"),
        "---\ndescription: Second helper\n---\nYou help too.\n",
    );
    s.control("r", json!({"subtype": "reload_plugins"}));
    let answer = s.response_to("r")["response"]["response"].clone();
    let commands: Vec<&str> = answer["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert!(commands.contains(&"kit:later"), "{commands:?}");
    assert!(commands.contains(&"clear"), "{commands:?}");
    assert!(
        answer["agents"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["name"] == "kit:second"),
        "{answer}"
    );
    assert_eq!(answer["plugins"][0]["name"], "kit");
    assert_eq!(answer["mcpServers"], json!([]));
    assert_eq!(answer["error_count"], 1, "the missing folder: {answer}");
    s.user("/later");
    let system = s.until(|v| v["type"] == "system" && v["subtype"] == "init");
    assert!(names(&system["slash_commands"]).contains(&"kit:later".to_string()));
    assert_eq!(system["plugins"][0]["version"], "1.0.0", "{system}");
    let errors = &system["plugin_errors"];
    assert_eq!(errors[0]["type"], "path-not-found", "{system}");
    assert!(
        errors[0]["path"]
            .as_str()
            .unwrap()
            .ends_with("missing-plugin"),
        "{errors}"
    );
    s.result();
}

#[test]
fn a_plugins_mcp_servers_join_the_session_unless_loaded_without_them() {
    let cwd = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let root = plugin(cwd.path());
    write(
        &root.join(".mcp.json"),
        r#"{"mcpServers": {"db": {"command": "${CLAUDE_PLUGIN_ROOT}/no-such-server"}}}"#,
    );
    let status = |flag: &str| {
        let mut s = Session::start(
            cwd.path(),
            home.path(),
            &["--model", "mock-model", flag, root.to_str().unwrap()],
            &[],
        );
        s.control("i", json!({"subtype": "initialize"}));
        s.response_to("i");
        s.control("m", json!({"subtype": "mcp_status"}));
        s.response_to("m")["response"]["response"]["mcpServers"].clone()
    };
    let with = status("--plugin-dir");
    assert_eq!(with[0]["name"], "plugin:kit:db", "{with}");
    assert_eq!(with[0]["status"], "failed", "{with}");
    let real = root.canonicalize().unwrap().display().to_string();
    assert!(with[0]["config"].to_string().contains(&real), "{with}");
    assert_eq!(status("--plugin-dir-no-mcp"), json!([]));
}

#[test]
fn what_is_read_but_not_acted_on_is_said_in_initialize() {
    let cwd = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let root = plugin(cwd.path());
    write(
        &root.join("hooks/hooks.json"),
        r#"{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "true"}]}]}}"#,
    );
    write(
        &cwd.path().join(".dcl/commands/status.md"),
        "Status: !`git status`\n",
    );
    write(
        &cwd.path().join(".dcl/settings.json"),
        r#"{"enabledPlugins": {"remote@market": true}}"#,
    );
    let mut s = Session::start(
        cwd.path(),
        home.path(),
        &[
            "--model",
            "mock-model",
            "--plugin-dir",
            root.to_str().unwrap(),
        ],
        &[],
    );
    s.control("i", json!({"subtype": "initialize"}));
    let warnings = s.response_to("i")["response"]["response"]["warnings"].to_string();
    // Plugin hooks run (cli/tests/all/command_hooks.rs), so they are not listed here.
    assert!(!warnings.contains("plugin hooks"), "{warnings}");
    assert!(
        warnings.contains("status.md: !`command` lines are not expanded"),
        "{warnings}"
    );
    assert!(
        warnings.contains("remote@market is not loaded"),
        "{warnings}"
    );
}
