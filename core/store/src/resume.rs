//! Finding a session again: `--resume <id>`, `--continue`, `--resume-session-at`,
//! `--resume-drops-turn` and `--fork-session`.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::chain::{self, HistoryMessage, flag, type_of, uuid_of};
use crate::entry::{DCL_STATE_TYPE, EntryContext, SessionState};
use crate::error::{Result, StoreError};
use crate::layout::{SessionFiles, check_uuid, is_uuid, projects_dir};
use crate::loader::{self, LoadWarning, Loaded};
use crate::sanitize::long_key_prefix;
use crate::writer::{Transcript, TranscriptOptions, is_chain_entry, new_uuid};

/// A session file found on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    pub home: PathBuf,
    pub files: SessionFiles,
}

/// Which session to resume.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// `--resume <id>`.
    Id(String),
    /// `--continue`: the newest session of this project.
    Continue,
}

/// Everything that shapes a resume.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResumeRequest {
    pub target: Target,
    /// `--resume-session-at <uuid>`: keep the chain up to and including this entry.
    pub at: Option<String>,
    /// `--resume-drops-turn <uuid>`: the prompt of the one turn the resume may drop.
    pub drops_turn: Option<String>,
}

/// A loaded session, ready to continue.
#[derive(Debug, Clone)]
pub struct Resumed {
    pub found: Found,
    pub loaded: Loaded,
    /// Indices into `loaded.entries`, root first.
    pub chain: Vec<usize>,
    /// The entry new entries hang from.
    pub leaf: Option<String>,
    pub history: Vec<HistoryMessage>,
    /// The last state line dcl wrote (model, mode, totals); `None` for a reference CLI
    /// transcript.
    pub state: Option<SessionState>,
}

impl Resumed {
    pub fn session_id(&self) -> &str {
        &self.found.files.session_id
    }

    pub fn warnings(&self) -> &[LoadWarning] {
        &self.loaded.warnings
    }

    /// The chain's entries, root first.
    pub fn chain_entries(&self) -> impl Iterator<Item = &Value> {
        self.chain.iter().map(|&i| &self.loaded.entries[i])
    }

    /// Continues the same session: the same file, new entries hanging from the leaf.
    pub fn continue_transcript(
        &self,
        ctx: EntryContext,
        opts: TranscriptOptions,
    ) -> Result<Transcript> {
        Transcript::append_to(self.found.files.clone(), ctx, self.leaf.clone(), opts)
    }

    /// `--fork-session`: a new session (`files`, under the transcript home) holding copies
    /// of the chain's entries with fresh uuids, each with `forkedFrom` naming its source.
    /// The source file is not touched. Returns the transcript and the copies.
    pub fn fork(
        &self,
        files: SessionFiles,
        ctx: EntryContext,
        opts: TranscriptOptions,
    ) -> Result<(Transcript, Vec<Value>)> {
        let new_id = ctx.session_id.clone();
        let mut t = Transcript::create(files, ctx, opts)?;
        let copies = fork_entries(self.chain_entries(), self.session_id(), &new_id);
        for c in &copies {
            t.raw(c.clone())?;
        }
        Ok((t, copies))
    }
}

/// Looks for `<session id>.jsonl` in each home: this project's folder first (a long key
/// also by its prefix), then every project folder.
pub fn find_session(homes: &[&Path], project_key: &str, session_id: &str) -> Result<Found> {
    check_uuid("session id", session_id)?;
    let file_name = format!("{session_id}.jsonl");
    let non_empty = |p: &Path| std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.len() > 0);
    for home in homes {
        let dir = projects_dir(home).join(project_key);
        if non_empty(&dir.join(&file_name)) {
            return Ok(found(home, dir, session_id));
        }
    }
    for home in homes {
        let Ok(read) = std::fs::read_dir(projects_dir(home)) else {
            continue;
        };
        let mut dirs: Vec<PathBuf> = read.flatten().map(|d| d.path()).collect();
        dirs.sort();
        // This project's long-key siblings (another hash wrote them) before the rest.
        if let Some(prefix) = long_key_prefix(project_key) {
            dirs.sort_by_key(|d| !dir_name(d).starts_with(&format!("{prefix}-")));
        }
        for dir in dirs {
            if non_empty(&dir.join(&file_name)) {
                return Ok(found(home, dir, session_id));
            }
        }
    }
    Err(StoreError::SessionNotFound {
        session_id: session_id.to_string(),
    })
}

/// `--continue`: the most recently written main session of this project in any home.
pub fn newest_session(homes: &[&Path], project_key: &str) -> Option<Found> {
    let mut best: Option<(std::time::SystemTime, Found)> = None;
    for home in homes {
        for dir in project_dirs(home, project_key) {
            let Ok(read) = std::fs::read_dir(&dir) else {
                continue;
            };
            for f in read.flatten() {
                let name = f.file_name().to_string_lossy().into_owned();
                let Some(id) = name.strip_suffix(".jsonl").filter(|s| is_uuid(s)) else {
                    continue;
                };
                let Ok(meta) = f.metadata() else { continue };
                if !meta.is_file() || meta.len() == 0 || first_line_is_sidechain(&f.path()) {
                    continue;
                }
                let Ok(mtime) = meta.modified() else { continue };
                if best.as_ref().is_none_or(|(t, _)| mtime > *t) {
                    best = Some((mtime, found(home, dir.clone(), id)));
                }
            }
        }
    }
    best.map(|(_, f)| f)
}

/// Loads the session a request names and works out its chain and history.
pub fn resume(
    homes: &[&Path],
    project_key: &str,
    cwd: &Path,
    req: &ResumeRequest,
) -> Result<Resumed> {
    let found = match &req.target {
        Target::Id(id) => find_session(homes, project_key, id)?,
        Target::Continue => {
            newest_session(homes, project_key).ok_or_else(|| StoreError::NothingToContinue {
                cwd: cwd.to_path_buf(),
            })?
        }
    };
    let loaded = loader::load(&found.files.transcript)?;
    resume_loaded(found, loaded, req)
}

/// [`resume`] on an already loaded file.
pub fn resume_loaded(found: Found, loaded: Loaded, req: &ResumeRequest) -> Result<Resumed> {
    let session_id = found.files.session_id.clone();
    let entries = &loaded.entries;
    let newest = chain::default_leaf(entries).ok_or_else(|| StoreError::EmptySession {
        session_id: session_id.clone(),
    })?;
    let not_found = |uuid: &str| StoreError::MessageNotFound {
        session_id: session_id.clone(),
        uuid: uuid.to_string(),
    };
    let chain = match (&req.at, &req.drops_turn) {
        (None, None) => chain::chain_to(entries, newest),
        (Some(at), None) => {
            let i = chain::find_uuid(entries, at).ok_or_else(|| not_found(at))?;
            chain::chain_to(entries, i)
        }
        (at, Some(turn)) => {
            let full = chain::chain_to(entries, newest);
            let keep = check_drops_turn(entries, &full, at.as_deref(), turn)?;
            full[..keep].to_vec()
        }
    };
    let leaf = chain.last().map(|&i| uuid_of(&entries[i]).to_string());
    let history = chain::history(entries, &chain);
    let state = entries
        .iter()
        .rev()
        .find(|e| type_of(e) == DCL_STATE_TYPE)
        .and_then(|e| serde_json::from_value(e.clone()).ok());
    Ok(Resumed {
        found,
        chain,
        leaf,
        history,
        state,
        loaded,
    })
}

/// The `--resume-drops-turn` guard. Everything after the resume point must belong to the
/// named turn: it must come first (a prompt) and no other prompt may follow it, so nothing
/// the caller has not seen (a queued message, another turn) is dropped. Without `at`, the
/// point is just before the named turn. Returns how many chain entries are kept.
pub fn check_drops_turn(
    entries: &[Value],
    chain: &[usize],
    at: Option<&str>,
    turn: &str,
) -> Result<usize> {
    let reject = |reason: String| Err(StoreError::DropsTurnRejected { reason });
    let pos = |uuid: &str| chain.iter().position(|&i| uuid_of(&entries[i]) == uuid);
    let Some(turn_pos) = pos(turn) else {
        return reject(format!("turn {turn} is not in the session's conversation"));
    };
    if !chain::is_prompt(&entries[chain[turn_pos]]) {
        return reject(format!("{turn} is not a user prompt"));
    }
    let keep = match at {
        Some(at) => match pos(at) {
            Some(p) => p + 1,
            None => return reject(format!("message {at} is not in the session's conversation")),
        },
        None => turn_pos,
    };
    if keep > turn_pos {
        return reject(format!("turn {turn} comes before the resume point"));
    }
    if let Some(&extra) = chain[keep..turn_pos].first() {
        return reject(format!(
            "entry {} between the resume point and turn {turn} belongs to no dropped turn",
            uuid_of(&entries[extra])
        ));
    }
    if let Some(&later) = chain[turn_pos + 1..]
        .iter()
        .find(|&&i| chain::is_prompt(&entries[i]))
    {
        return reject(format!(
            "turn {turn} is not the last one: prompt {} follows it",
            uuid_of(&entries[later])
        ));
    }
    Ok(keep)
}

/// Copies of chain entries for a fork, as the SDK's `fork_session` makes them: fresh
/// uuids, parents remapped, the new session id, `isSidechain` false, `forkedFrom`.
pub fn fork_entries<'a>(
    chain: impl IntoIterator<Item = &'a Value>,
    source_session: &str,
    new_session: &str,
) -> Vec<Value> {
    let chain: Vec<&Value> = chain
        .into_iter()
        .filter(|e| is_chain_entry(e) && !flag(e, "isSidechain") && type_of(e) != "progress")
        .collect();
    let map: std::collections::HashMap<&str, String> =
        chain.iter().map(|e| (uuid_of(e), new_uuid())).collect();
    let remap = |v: Option<&Value>| -> Value {
        v.and_then(Value::as_str)
            .and_then(|p| map.get(p))
            .map_or(Value::Null, |n| json!(n))
    };
    chain
        .iter()
        .map(|e| {
            let mut c = (*e).clone();
            if let Value::Object(m) = &mut c {
                let old = uuid_of(e).to_string();
                m.insert("uuid".into(), json!(map[old.as_str()]));
                m.insert("parentUuid".into(), remap(e.get("parentUuid")));
                if m.contains_key("logicalParentUuid") {
                    m.insert(
                        "logicalParentUuid".into(),
                        remap(e.get("logicalParentUuid")),
                    );
                }
                m.insert("sessionId".into(), json!(new_session));
                m.insert("isSidechain".into(), json!(false));
                m.insert(
                    "forkedFrom".into(),
                    json!({"sessionId": source_session, "messageUuid": old}),
                );
                for k in ["teamName", "agentName", "slug", "sourceToolAssistantUUID"] {
                    m.remove(k);
                }
            }
            c
        })
        .collect()
}

fn found(home: &Path, dir: PathBuf, session_id: &str) -> Found {
    Found {
        home: home.to_path_buf(),
        files: SessionFiles::in_project(dir, session_id),
    }
}

/// This project's folders in one home: the exact key, and for a long key any folder with
/// its prefix.
pub(crate) fn project_dirs(home: &Path, project_key: &str) -> Vec<PathBuf> {
    let root = projects_dir(home);
    let mut out = vec![root.join(project_key)];
    if let Some(prefix) = long_key_prefix(project_key)
        && let Ok(read) = std::fs::read_dir(&root)
    {
        {
            let want = format!("{prefix}-");
            for d in read.flatten() {
                let p = d.path();
                if dir_name(&p).starts_with(&want) && !out.contains(&p) {
                    out.push(p);
                }
            }
        }
    }
    out
}

fn dir_name(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn first_line_is_sidechain(path: &Path) -> bool {
    use std::io::{BufRead, BufReader};
    let Ok(f) = std::fs::File::open(path) else {
        return false;
    };
    let mut line = String::new();
    if BufReader::new(f).read_line(&mut line).is_err() {
        return false;
    }
    line.contains("\"isSidechain\":true")
}
