//! The path decision through every alias, on real symlinks in temp dirs: each attack of
//! issue 36 (a rule naming a link, a linked folder, HOME through a link, protected names
//! that are links or link targets, glob characters and non-UTF-8 bytes in the cwd) next
//! to a twin that must still run.

use std::collections::BTreeMap;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Value, json};

use super::*;
use dcl_tool_api::Tool;

/// `root/work` is the cwd, `root/home` the real HOME, `root/outside` outside both.
struct World {
    _dir: tempfile::TempDir,
    root: PathBuf,
    work: PathBuf,
    home: PathBuf,
}

fn write(p: &Path, text: &str) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn world_named(work: &std::ffi::OsStr) -> World {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let work = root.join(work);
    let home = root.join("home");
    write(&work.join("src/a.rs"), "fn a() {}\n");
    write(&home.join(".ssh/id_rsa"), "KEY\n");
    write(&root.join("outside/s/key.txt"), "SECRET\n");
    World {
        _dir: dir,
        root,
        work,
        home,
    }
}

fn world() -> World {
    world_named(std::ffi::OsStr::new("work"))
}

fn tool(name: &str) -> Box<dyn Tool> {
    match name {
        "Read" => Box::new(dcl_tools::read::ReadTool),
        "Write" => Box::new(dcl_tools::write::WriteTool),
        "Edit" => Box::new(dcl_tools::edit::EditTool),
        "Grep" => Box::new(dcl_tools::grep::GrepTool),
        "Glob" => Box::new(dcl_tools::glob::GlobTool),
        "NotebookEdit" => Box::new(dcl_tools::notebook_edit::NotebookEditTool),
        "Bash" => Box::new(dcl_tools::bash::BashTool),
        other => panic!("no tool {other}"),
    }
}

struct Case<'a> {
    w: &'a World,
    mode: PermissionMode,
    allow: &'a [&'a str],
    deny: &'a [&'a str],
    home: Option<PathBuf>,
}

impl Case<'_> {
    fn check(&self, name: &str, input: Value) -> Verdict {
        let s = |v: &[&str]| v.iter().map(|r| r.to_string()).collect::<Vec<_>>();
        let policy = Policy::new(self.mode, &s(self.allow), &s(self.deny), &self.w.work, &[]);
        let mut ctx = ToolContext::new(self.w.work.clone());
        let home = self.home.clone().unwrap_or_else(|| self.w.home.clone());
        ctx.env = Arc::new(BTreeMap::from([(
            "HOME".to_string(),
            home.display().to_string(),
        )]));
        let t = tool(name);
        policy.check(name, Some(t.as_ref()), &input, &ctx)
    }
}

fn denied(v: &Verdict) -> bool {
    matches!(v, Verdict::Deny(_))
}

fn asks(v: &Verdict) -> bool {
    matches!(v, Verdict::Ask { .. })
}

fn read(p: impl AsRef<Path>) -> Value {
    json!({"file_path": p.as_ref().to_str().unwrap()})
}

fn write_input(p: impl AsRef<Path>) -> Value {
    json!({"file_path": p.as_ref().to_str().unwrap(), "content": "x"})
}

#[test]
fn a_deny_rule_naming_a_file_link_binds_its_target() {
    let w = world();
    write(&w.work.join("config/dev.env"), "SECRET=1\n");
    write(&w.work.join("config/other.env"), "PUBLIC=1\n");
    symlink("config/dev.env", w.work.join(".env")).unwrap();
    let c = Case {
        w: &w,
        mode: PermissionMode::Default,
        allow: &[],
        deny: &["Read(./.env)"],
        home: None,
    };
    assert!(denied(&c.check("Read", read(".env"))));
    assert!(denied(&c.check("Read", read("config/dev.env"))));
    assert!(denied(
        &c.check("Bash", json!({"command": "cat config/dev.env"}))
    ));
    // Twin: the folder's other file reads unasked.
    assert_eq!(c.check("Read", read("config/other.env")), Verdict::Allow);
}

#[test]
fn a_deny_rule_under_a_linked_folder_binds_every_tool() {
    let w = world();
    symlink(w.root.join("outside/s"), w.work.join("secret")).unwrap();
    let c = Case {
        w: &w,
        mode: PermissionMode::Default,
        allow: &[],
        deny: &["Read(./secret/**)"],
        home: None,
    };
    let target = w.root.join("outside/s/key.txt");
    for (name, input) in [
        ("Read", read("secret/key.txt")),
        ("Read", read(&target)),
        ("Grep", json!({"pattern": "SECRET"})),
        ("Grep", json!({"pattern": "SECRET", "path": "secret"})),
        (
            "Grep",
            json!({"pattern": "SECRET", "path": w.root.join("outside").to_str().unwrap()}),
        ),
        ("Glob", json!({"pattern": "secret/**"})),
        ("Bash", json!({"command": "cat secret/key.txt"})),
        (
            "Bash",
            json!({"command": format!("cat {}", target.display())}),
        ),
    ] {
        assert!(denied(&c.check(name, input.clone())), "{name} {input}");
    }
    // Twins: the rest of the project reads unasked.
    assert_eq!(c.check("Read", read("src/a.rs")), Verdict::Allow);
    assert_eq!(
        c.check("Grep", json!({"pattern": "x", "path": "src"})),
        Verdict::Allow
    );
}

#[test]
fn an_edit_deny_rule_on_a_linked_folder_binds_writes_under_accept_edits() {
    let w = world();
    std::fs::create_dir_all(w.work.join("real-cfg")).unwrap();
    symlink("real-cfg", w.work.join("cfg")).unwrap();
    let c = Case {
        w: &w,
        mode: PermissionMode::AcceptEdits,
        allow: &[],
        deny: &["Edit(./cfg/**)"],
        home: None,
    };
    assert!(denied(&c.check("Write", write_input("cfg/app.toml"))));
    assert!(denied(&c.check("Write", write_input("real-cfg/app.toml"))));
    assert!(denied(
        &c.check("Bash", json!({"command": "echo x > cfg/app.toml"}))
    ));
    assert!(denied(&c.check(
        "Bash",
        json!({"command": "echo x > real-cfg/app.toml"})
    )));
    // Twin: a write elsewhere in the project is accepted.
    assert_eq!(c.check("Write", write_input("src/b.rs")), Verdict::Allow);
}

#[test]
fn home_rules_bind_when_home_is_reached_through_a_link() {
    let w = world();
    let link_home = w.root.join("home-link");
    symlink(&w.home, &link_home).unwrap();
    for home in [link_home.clone(), w.home.clone()] {
        let c = Case {
            w: &w,
            mode: PermissionMode::AcceptEdits,
            allow: &["Read"],
            deny: &["Read(~/.ssh/**)", "Edit(~/.ssh/**)"],
            home: Some(home.clone()),
        };
        for base in [&link_home, &w.home] {
            let key = base.join(".ssh/id_rsa");
            assert!(denied(&c.check("Read", read(&key))), "{home:?} {key:?}");
            assert!(denied(&c.check("Write", write_input(&key))), "{key:?}");
        }
        // Twin: another file in HOME is read under the `Read` allow rule.
        write(&w.home.join("notes.txt"), "n\n");
        assert_eq!(
            c.check("Read", read(w.home.join("notes.txt"))),
            Verdict::Allow
        );
    }
}

#[test]
fn protected_names_hold_through_links_and_at_the_link_targets() {
    let w = world();
    let wk = &w.work;
    write(&wk.join("dotconf/settings.json"), "{}");
    std::fs::create_dir_all(wk.join(".claude")).unwrap();
    symlink("../dotconf/settings.json", wk.join(".claude/settings.json")).unwrap();
    std::fs::create_dir_all(wk.join("dcl-conf")).unwrap();
    symlink("dcl-conf", wk.join(".dcl")).unwrap();
    write(&wk.join("config/mcp.json"), "{}");
    symlink("config/mcp.json", wk.join(".mcp.json")).unwrap();
    std::fs::create_dir_all(wk.join(".git")).unwrap();
    std::fs::create_dir_all(wk.join("githooks")).unwrap();
    symlink("../githooks", wk.join(".git/hooks")).unwrap();
    write(&wk.join("gitcfg"), "[core]\n");
    symlink("../gitcfg", wk.join(".git/config")).unwrap();
    write(&w.home.join("dotfiles/bashrc"), "# rc\n");
    symlink("dotfiles/bashrc", w.home.join(".bashrc")).unwrap();
    // A link inside the project that leads into a protected folder.
    symlink(".git/hooks/pre-commit", wk.join("innocent.sh")).unwrap();
    for mode in [PermissionMode::AcceptEdits, PermissionMode::Default] {
        let c = Case {
            w: &w,
            mode,
            allow: &["Write", "Edit", "Bash"],
            deny: &[],
            home: None,
        };
        for p in [
            wk.join(".claude/settings.json"),
            wk.join("dotconf/settings.json"),
            wk.join(".dcl/settings.json"),
            wk.join("dcl-conf/settings.json"),
            wk.join(".mcp.json"),
            wk.join("config/mcp.json"),
            wk.join(".git/hooks/pre-commit"),
            wk.join("githooks/pre-commit"),
            wk.join(".git/config"),
            wk.join("gitcfg"),
            wk.join("innocent.sh"),
            w.home.join(".bashrc"),
            w.home.join("dotfiles/bashrc"),
            w.home.join(".claude.json"),
            wk.join(".Claude/settings.json"),
            wk.join(".VSCode/tasks.json"),
            wk.join(".idea/workspace.xml"),
            wk.join(".gitmodules"),
            wk.join(".ripgreprc"),
        ] {
            let v = c.check("Write", write_input(&p));
            // A protected name that is itself a link is refused outright (as the
            // reference refuses it); every other name here asks.
            let is_link = std::fs::symlink_metadata(&p).is_ok_and(|m| m.file_type().is_symlink());
            if is_link {
                assert!(
                    matches!(&v, Verdict::Deny(m) if m.contains("symbolic link")),
                    "{mode:?} {p:?}: {v:?}"
                );
            } else {
                assert!(asks(&v), "{mode:?} {p:?}: {v:?}");
            }
        }
        for line in [
            "echo x > dotconf/settings.json",
            "echo x > githooks/pre-commit",
            "cp /dev/null config/mcp.json",
        ] {
            assert!(asks(&c.check("Bash", json!({"command": line}))), "{line}");
        }
        // Twins: names that merely resemble protected ones, an ordinary link inside the
        // project, a neighbour of a link target.
        write(&wk.join("real.txt"), "r\n");
        symlink("real.txt", wk.join("alias.txt")).ok();
        for p in [
            wk.join("settings.json.bak"),
            wk.join("my.vscode.txt"),
            wk.join(".mcp.json.example"),
            wk.join("alias.txt"),
            wk.join("config/other.json"),
            wk.join("dotconf/other.json"),
        ] {
            assert_eq!(
                c.check("Write", write_input(&p)),
                Verdict::Allow,
                "{mode:?} {p:?}"
            );
        }
    }
}

#[test]
fn accept_edits_grants_only_where_the_link_leads() {
    let w = world();
    symlink(w.root.join("outside"), w.work.join("out")).unwrap();
    std::fs::create_dir_all(w.work.join("lib")).unwrap();
    symlink("lib", w.work.join("inlink")).unwrap();
    let c = Case {
        w: &w,
        mode: PermissionMode::AcceptEdits,
        allow: &[],
        deny: &[],
        home: None,
    };
    assert!(asks(&c.check("Write", write_input("out/x.txt"))));
    assert!(asks(&c.check("Write", write_input("out/../../x.txt"))));
    assert_eq!(c.check("Write", write_input("inlink/x.rs")), Verdict::Allow);
    // An allow rule over `src/**` does not grant a link in it that leads outside.
    symlink(w.root.join("outside"), w.work.join("src/evil")).unwrap();
    let c = Case {
        w: &w,
        mode: PermissionMode::Default,
        allow: &["Edit(src/**)"],
        deny: &[],
        home: None,
    };
    assert!(asks(&c.check("Write", write_input("src/evil/x.txt"))));
    assert_eq!(c.check("Write", write_input("src/b.rs")), Verdict::Allow);
}

#[test]
fn glob_characters_and_non_utf8_bytes_in_the_cwd_mean_themselves() {
    let names: [&[u8]; 4] = [b"proj[1]", b"proj{a}", b"p*", b"pro\xffj"];
    for name in names {
        let w = world_named(std::ffi::OsStr::from_bytes(name));
        write(&w.work.join("secret/k.txt"), "S\n");
        // What a glob reading of the cwd would take for it.
        let sibling = w.root.join("proj1/secret/k.txt");
        write(&sibling, "S\n");
        let c = Case {
            w: &w,
            mode: PermissionMode::Default,
            allow: &["Edit(src/**)"],
            deny: &["Read(./secret/**)"],
            home: None,
        };
        let label = String::from_utf8_lossy(name);
        assert!(
            denied(&c.check("Read", json!({"file_path": "secret/k.txt"}))),
            "{label}"
        );
        assert!(!denied(&c.check("Read", read(&sibling))), "{label}");
        assert_eq!(
            c.check("Write", json!({"file_path": "src/b.rs", "content": "x"})),
            Verdict::Allow,
            "{label}"
        );
    }
}
