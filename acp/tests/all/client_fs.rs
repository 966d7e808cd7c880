//! Client file access: when the client offers `fs.readTextFile` / `fs.writeTextFile`,
//! Read, Write and Edit go through the editor (its unsaved buffer is what Read sees; a
//! write reaches the editor, not the disk); when it does not, dcl reads and writes the
//! disk. The permission decision is the same either way: a deny rule refuses a Read
//! before the editor is asked. When it offers `terminal`, Bash runs in the editor's
//! terminal, shown in the call.

use crate::common::{Cx, Seen, js, typed, with_client};
use agent_client_protocol::v1::schema::{
    InitializeRequest, InitializeResponse, NewSessionRequest, NewSessionResponse, PromptRequest,
    PromptResponse,
};
use serde_json::{Value, json};

const FS: &str = r#"{"fs": {"readTextFile": true, "writeTextFile": true}}"#;

/// A session whose client offers `caps`; runs one FAKE_TOOL prompt and gives the call's
/// final update.
async fn run_tool(
    cx: &Cx,
    cwd: &str,
    caps: &str,
    seen: &Seen,
    tool: &str,
) -> agent_client_protocol::Result<Value> {
    let caps: Value = serde_json::from_str(caps).expect("caps");
    let _: InitializeResponse = cx
        .send_request(typed::<InitializeRequest>(
            json!({"protocolVersion": 1, "clientCapabilities": caps}),
        ))
        .block_task()
        .await?;
    let r: NewSessionResponse = cx
        .send_request(typed::<NewSessionRequest>(
            json!({"cwd": cwd, "mcpServers": []}),
        ))
        .block_task()
        .await?;
    let id = js(&r)["sessionId"].as_str().unwrap_or("").to_string();
    let r: PromptResponse = cx
        .send_request(typed::<PromptRequest>(json!({"sessionId": id, "prompt": [
            {"type": "text", "text": format!("FAKE_TOOL {tool}")}]})))
        .block_task()
        .await?;
    assert_eq!(js(&r)["stopReason"], "end_turn");
    Ok(seen
        .updates_of(&id)
        .into_iter()
        .rfind(|u| u["sessionUpdate"] == "tool_call_update")
        .unwrap_or(Value::Null))
}

fn at(cwd: &str, name: &str) -> String {
    std::path::Path::new(cwd).join(name).display().to_string()
}

const BYPASS: &[&str] = &["--permission-mode", "bypassPermissions"];

#[tokio::test]
async fn read_sees_the_editors_buffer() {
    let seen = Seen::default();
    let s = seen.clone();
    with_client(BYPASS, seen, async move |cx, cwd| {
        std::fs::write(at(&cwd, "a.txt"), "saved on disk\n").expect("write");
        s.buffers
            .lock()
            .expect("lock")
            .insert(at(&cwd, "a.txt"), "unsaved in the editor\n".into());
        let done = run_tool(&cx, &cwd, FS, &s, r#"Read {"file_path": "a.txt"}"#).await?;
        assert_eq!(done["status"], "completed", "{done}");
        let text = done.to_string();
        assert!(text.contains("unsaved in the editor"), "{text}");
        assert!(!text.contains("saved on disk"), "{text}");
        assert_eq!(*s.fs_reads.lock().expect("lock"), [at(&cwd, "a.txt")]);
        Ok(())
    })
    .await;
}

#[tokio::test]
async fn write_reaches_the_editor_not_the_disk() {
    let seen = Seen::default();
    let s = seen.clone();
    let dcl = with_client(BYPASS, seen, async move |cx, cwd| {
        let tool = r#"Write {"file_path": "new.txt", "content": "from the model\n"}"#;
        let done = run_tool(&cx, &cwd, FS, &s, tool).await?;
        assert_eq!(done["status"], "completed", "{done}");
        assert_eq!(
            *s.fs_writes.lock().expect("lock"),
            [(at(&cwd, "new.txt"), "from the model\n".to_string())]
        );
        Ok(())
    })
    .await;
    assert!(!dcl.cwd.path().join("new.txt").exists(), "written to disk");
}

#[tokio::test]
async fn edit_changes_the_editors_text() {
    let seen = Seen::default();
    let s = seen.clone();
    let dcl = with_client(BYPASS, seen, async move |cx, cwd| {
        std::fs::write(at(&cwd, "e.txt"), "alpha\n").expect("write");
        s.buffers
            .lock()
            .expect("lock")
            .insert(at(&cwd, "e.txt"), "beta\n".into());
        let tool = r#"Edit {"file_path": "e.txt", "old_string": "beta", "new_string": "gamma"}"#;
        let done = run_tool(&cx, &cwd, FS, &s, tool).await?;
        assert_eq!(done["status"], "completed", "{done}");
        assert_eq!(
            *s.fs_writes.lock().expect("lock"),
            [(at(&cwd, "e.txt"), "gamma\n".to_string())]
        );
        Ok(())
    })
    .await;
    let disk = std::fs::read_to_string(dcl.cwd.path().join("e.txt")).expect("read");
    assert_eq!(disk, "alpha\n", "the disk is the editor's to save");
}

#[tokio::test]
async fn without_the_capability_dcl_uses_the_disk() {
    let seen = Seen::default();
    let s = seen.clone();
    let dcl = with_client(BYPASS, seen, async move |cx, cwd| {
        std::fs::write(at(&cwd, "a.txt"), "saved on disk\n").expect("write");
        s.buffers
            .lock()
            .expect("lock")
            .insert(at(&cwd, "a.txt"), "unsaved in the editor\n".into());
        let done = run_tool(&cx, &cwd, "{}", &s, r#"Read {"file_path": "a.txt"}"#).await?;
        assert!(done.to_string().contains("saved on disk"), "{done}");
        let tool = r#"Write {"file_path": "new.txt", "content": "x\n"}"#;
        let done = run_tool(&cx, &cwd, "{}", &s, tool).await?;
        assert_eq!(done["status"], "completed", "{done}");
        assert!(s.fs_reads.lock().expect("lock").is_empty());
        assert!(s.fs_writes.lock().expect("lock").is_empty());
        Ok(())
    })
    .await;
    assert!(dcl.cwd.path().join("new.txt").exists());
}

/// The permission decision runs before the editor is asked: a denied Read fails and the
/// editor never sees the request; its positive twin (an allowed file) still reads.
#[tokio::test]
async fn a_deny_rule_still_refuses_a_client_read() {
    let settings = tempfile::tempdir().expect("dir");
    let file = settings.path().join("settings.json");
    std::fs::write(
        &file,
        r#"{"permissions": {"deny": ["Read(./secret.txt)"]}}"#,
    )
    .expect("write");
    let path = file.display().to_string();
    let seen = Seen::default();
    let s = seen.clone();
    let args = [
        "--permission-mode",
        "bypassPermissions",
        "--settings",
        &path,
    ];
    with_client(&args, seen, async move |cx, cwd| {
        s.buffers
            .lock()
            .expect("lock")
            .insert(at(&cwd, "secret.txt"), "top secret\n".into());
        let done = run_tool(&cx, &cwd, FS, &s, r#"Read {"file_path": "secret.txt"}"#).await?;
        assert_eq!(done["status"], "failed", "{done}");
        assert!(!done.to_string().contains("top secret"), "{done}");
        assert!(
            s.fs_reads.lock().expect("lock").is_empty(),
            "the editor was asked"
        );
        Ok(())
    })
    .await;
}

#[tokio::test]
async fn bash_runs_in_the_editors_terminal_when_offered() {
    let seen = Seen::default();
    let s = seen.clone();
    with_client(BYPASS, seen, async move |cx, cwd| {
        let caps = r#"{"terminal": true}"#;
        let tool = r#"Bash {"command": "echo from-the-terminal"}"#;
        let done = run_tool(&cx, &cwd, caps, &s, tool).await?;
        assert_eq!(done["status"], "completed", "{done}");
        assert!(done.to_string().contains("from-the-terminal"), "{done}");
        let terminals = s.terminals.lock().expect("lock").clone();
        assert_eq!(terminals.len(), 1, "{terminals:?}");
        assert_eq!(terminals[0]["command"], "bash");
        assert_eq!(
            terminals[0]["args"],
            json!(["-c", "echo from-the-terminal"])
        );
        // The call showed the terminal while it ran.
        let shown = s.updates.lock().expect("lock").iter().any(|n| {
            n["update"]["content"]
                .as_array()
                .is_some_and(|c| c.iter().any(|b| b["type"] == "terminal"))
        });
        assert!(shown, "no terminal content in the call's updates");
        Ok(())
    })
    .await;
}

#[tokio::test]
async fn bash_runs_locally_without_the_capability() {
    let seen = Seen::default();
    let s = seen.clone();
    with_client(BYPASS, seen, async move |cx, cwd| {
        let tool = r#"Bash {"command": "echo from-dcl"}"#;
        let done = run_tool(&cx, &cwd, "{}", &s, tool).await?;
        assert!(done.to_string().contains("from-dcl"), "{done}");
        assert!(s.terminals.lock().expect("lock").is_empty());
        Ok(())
    })
    .await;
}

/// With the OS sandbox on, Bash cannot run in the editor's terminal (dcl cannot confine
/// a process the editor starts): it runs in dcl's own sandboxed shell instead, even when
/// the client offers a terminal. Its positive twin is the test above.
#[tokio::test]
async fn sandboxed_bash_stays_out_of_the_editors_terminal() {
    let settings = tempfile::tempdir().expect("dir");
    let file = settings.path().join("settings.json");
    std::fs::write(&file, r#"{"sandbox": {"enabled": true}}"#).expect("write");
    let path = file.display().to_string();
    let seen = Seen::default();
    let s = seen.clone();
    let args = [
        "--permission-mode",
        "bypassPermissions",
        "--settings",
        &path,
    ];
    with_client(&args, seen, async move |cx, cwd| {
        let tool = r#"Bash {"command": "echo from-dcl"}"#;
        let done = run_tool(&cx, &cwd, r#"{"terminal": true}"#, &s, tool).await?;
        assert!(
            s.terminals.lock().expect("lock").is_empty(),
            "a sandboxed command ran in the editor's terminal"
        );
        assert_eq!(done["sessionUpdate"], "tool_call_update", "{done}");
        Ok(())
    })
    .await;
}
