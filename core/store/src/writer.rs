//! Appending a transcript: one entry per line, each line one `write(2)` on an `O_APPEND`
//! file, so a SIGKILL loses at most the line being written and lines that other writers
//! append (the SDK's `rename_session`, `tag_session`) interleave whole.

#[cfg(not(unix))]
use crate::unix_modes::ModeExt as _;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
#[cfg(unix)]
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::entry::{EntryContext, SessionState};
use crate::error::{Result, StoreError};
use crate::handles;
use crate::layout::SessionFiles;
use crate::mirror::MirrorSink;
use crate::redact::Redactor;

/// A fresh random v4 UUID, the form of every session id and entry uuid.
pub fn new_uuid() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// A transcript file to append to. It holds no descriptor of its own: entries go through
/// [`handles`], a small pool shared by every session of the process, so 10,000 idle
/// sessions hold no transcript open while a busy one does not reopen its file per entry.
#[derive(Debug)]
pub struct TranscriptFile {
    path: PathBuf,
}

impl TranscriptFile {
    /// Opens `path` for appending, creating it (`0600`) and its folders (`0700`).
    /// A file whose last line was torn by a crash gets a newline first, so the next entry
    /// starts a line of its own (the torn fragment stays, and loading skips it).
    pub fn open(path: &Path) -> Result<TranscriptFile> {
        Self::open_checked(path, |_| Ok(()))
    }

    /// [`TranscriptFile::open`], with `check` shown the file's length before anything is
    /// written to it (an `Err` leaves the file as it was). The descriptor opened here is
    /// the one the first entries are written through (it goes to the [`handles`] pool).
    fn open_checked(path: &Path, check: impl FnOnce(u64) -> Result<()>) -> Result<TranscriptFile> {
        if let Some(dir) = path.parent() {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .map_err(|e| StoreError::io("cannot create", dir, e))?;
        }
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .mode(0o600)
            .open(path)
            .map_err(|e| StoreError::io("cannot open", path, e))?;
        let len = file
            .metadata()
            .map_err(|e| StoreError::io("cannot read", path, e))?
            .len();
        check(len)?;
        if ends_torn(&mut file, len).map_err(|e| StoreError::io("cannot read", path, e))? {
            file.write_all(b"\n")
                .map_err(|e| StoreError::io("cannot write", path, e))?;
        }
        handles::keep(path, file);
        Ok(TranscriptFile {
            path: path.to_path_buf(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes one entry as one line.
    pub fn append(&mut self, entry: &Value) -> Result<()> {
        let mut line = serde_json::to_vec(entry)?;
        line.push(b'\n');
        let file =
            handles::get(&self.path).map_err(|e| StoreError::io("cannot open", &self.path, e))?;
        // `write_all` on a regular file is one write(2) unless the disk is full or the line
        // is enormous; O_APPEND puts it at the end whoever else appended meanwhile.
        (&*file)
            .write_all(&line)
            .map_err(|e| StoreError::io("cannot write", &self.path, e))
    }
}

/// True when a non-empty file (of `len` bytes) does not end with a newline.
fn ends_torn(file: &mut File, len: u64) -> std::io::Result<bool> {
    if len == 0 {
        return Ok(false);
    }
    file.seek(SeekFrom::Start(len - 1))?;
    let mut last = [0u8; 1];
    file.read_exact(&mut last)?;
    Ok(last[0] != b'\n')
}

/// How a transcript writes besides its file.
#[derive(Debug, Clone, Default)]
pub struct TranscriptOptions {
    pub redactor: Arc<Redactor>,
    /// Set with `--session-mirror`: every written entry is also collected here.
    pub mirror: Option<MirrorSink>,
    /// Set with a session store: every written entry is also queued for the store.
    pub spool: Option<crate::remote::sync::SpoolSink>,
}

/// One session's (or subagent's) transcript: the file, the shared entry fields, and the
/// leaf that the next chain entry hangs from.
#[derive(Debug)]
pub struct Transcript {
    file: TranscriptFile,
    files: SessionFiles,
    ctx: EntryContext,
    leaf: Option<String>,
    opts: TranscriptOptions,
}

/// The two entries a compaction writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactIds {
    pub boundary: String,
    pub summary: String,
}

impl Transcript {
    /// Starts a new session's transcript. An id whose transcript already holds entries is
    /// refused (`--session-id` must name a new session; `--resume` continues one).
    pub fn create(
        files: SessionFiles,
        ctx: EntryContext,
        opts: TranscriptOptions,
    ) -> Result<Transcript> {
        let file = TranscriptFile::open_checked(&files.transcript, |len| {
            if len > 0 {
                return Err(StoreError::SessionExists {
                    session_id: files.session_id.clone(),
                    path: files.transcript.clone(),
                });
            }
            Ok(())
        })?;
        Ok(Transcript {
            file,
            files,
            ctx,
            leaf: None,
            opts,
        })
    }

    /// Continues an existing transcript (a resume), hanging new entries from `leaf`.
    pub fn append_to(
        files: SessionFiles,
        ctx: EntryContext,
        leaf: Option<String>,
        opts: TranscriptOptions,
    ) -> Result<Transcript> {
        let file = TranscriptFile::open(&files.transcript)?;
        Ok(Transcript {
            file,
            files,
            ctx,
            leaf,
            opts,
        })
    }

    pub fn path(&self) -> &Path {
        self.file.path()
    }

    pub fn files(&self) -> &SessionFiles {
        &self.files
    }

    pub fn context(&self) -> &EntryContext {
        &self.ctx
    }

    pub fn session_id(&self) -> &str {
        &self.ctx.session_id
    }

    /// The uuid the next chain entry will name as its parent.
    pub fn leaf(&self) -> Option<&str> {
        self.leaf.as_deref()
    }

    /// Moves the leaf (e.g. `/clear` starts a new chain with `None`).
    pub fn set_leaf(&mut self, leaf: Option<String>) {
        self.leaf = leaf;
    }

    /// A user entry (prompt or tool results) hanging from the leaf.
    pub fn user(&mut self, uuid: &str, message: Value, extra: Map<String, Value>) -> Result<()> {
        self.chain("user", uuid, Some(message), extra)
    }

    /// An assistant entry: `message` holds one content block, with the request's `id`.
    pub fn assistant(
        &mut self,
        uuid: &str,
        message: Value,
        extra: Map<String, Value>,
    ) -> Result<()> {
        self.chain("assistant", uuid, Some(message), extra)
    }

    /// A system entry (`subtype`, `content`, `level`), part of the chain as in the reference.
    pub fn system(
        &mut self,
        uuid: &str,
        subtype: &str,
        content: &str,
        mut extra: Map<String, Value>,
    ) -> Result<()> {
        let mut all = Map::new();
        all.insert("subtype".into(), json!(subtype));
        all.insert("content".into(), json!(content));
        all.insert("isMeta".into(), json!(false));
        all.insert("level".into(), json!("info"));
        all.append(&mut extra);
        self.chain("system", uuid, None, all)
    }

    /// Any chain entry; the leaf moves to it.
    pub fn chain(
        &mut self,
        kind: &str,
        uuid: &str,
        message: Option<Value>,
        extra: Map<String, Value>,
    ) -> Result<()> {
        let entry = self
            .ctx
            .chain_entry(kind, uuid, self.leaf.as_deref(), message, extra);
        self.write(entry)?;
        self.leaf = Some(uuid.to_string());
        Ok(())
    }

    /// A compaction: the boundary (a new root pointing back at the old leaf) and the
    /// summary under it; the leaf moves to the summary.
    pub fn compact(&mut self, trigger: &str, pre_tokens: u64, summary: &str) -> Result<CompactIds> {
        let ids = CompactIds {
            boundary: new_uuid(),
            summary: new_uuid(),
        };
        self.compact_as(&ids, trigger, pre_tokens, summary)?;
        Ok(ids)
    }

    /// [`Transcript::compact`] under the uuids the stream already used (the
    /// `compact_boundary` line and the summary item keep the same uuid on disk).
    pub fn compact_as(
        &mut self,
        ids: &CompactIds,
        trigger: &str,
        pre_tokens: u64,
        summary: &str,
    ) -> Result<()> {
        let boundary =
            self.ctx
                .compact_boundary(&ids.boundary, self.leaf.as_deref(), trigger, pre_tokens);
        self.write(boundary)?;
        self.leaf = Some(ids.boundary.clone());
        let s = self
            .ctx
            .compact_summary(&ids.summary, &ids.boundary, summary);
        self.write(s)?;
        self.leaf = Some(ids.summary.clone());
        Ok(())
    }

    /// A line outside the chain (title, tag, last prompt, state…); the leaf stays.
    pub fn metadata(&mut self, entry: Value) -> Result<()> {
        self.write(entry)
    }

    /// dcl's state line (model, mode, totals), written before each result.
    pub fn state(&mut self, state: &SessionState) -> Result<()> {
        let e = self.ctx.state(state);
        self.write(e)
    }

    /// The title the session is listed under (`rename_session`); the last one wins.
    pub fn custom_title(&mut self, title: &str) -> Result<()> {
        let e = self.ctx.custom_title(title);
        self.write(e)
    }

    /// The prompt `list_sessions` shows for this session.
    pub fn last_prompt(&mut self, prompt: &str) -> Result<()> {
        let e = self.ctx.last_prompt(prompt);
        self.write(e)
    }

    /// Writes an entry exactly as given (a fork's copied entries); a chain entry's uuid
    /// becomes the leaf.
    pub fn raw(&mut self, entry: Value) -> Result<()> {
        let uuid = is_chain_entry(&entry)
            .then(|| {
                entry
                    .get("uuid")
                    .and_then(Value::as_str)
                    .map(str::to_string)
            })
            .flatten();
        self.write(entry)?;
        if uuid.is_some() {
            self.leaf = uuid;
        }
        Ok(())
    }

    /// Opens a subagent's transcript beside this session's, writing its `.meta.json`
    /// (`{"agentType":…,"toolUseId":…,…}`) first. The subagent shares this transcript's
    /// redactor and mirror.
    /// Where [`Transcript::subagent`] keeps `agent_id`'s transcript.
    pub fn subagent_path(&self, agent_id: &str) -> Result<PathBuf> {
        self.files.subagent_transcript(agent_id)
    }

    pub fn subagent(&self, agent_id: &str, meta: &Value) -> Result<Transcript> {
        let path = self.files.subagent_transcript(agent_id)?;
        let meta_path = self.files.subagent_meta(agent_id)?;
        let mut meta = meta.clone();
        self.opts.redactor.redact(&mut meta);
        let file = TranscriptFile::open(&path)?;
        write_meta(&meta_path, &meta)?;
        if self.opts.mirror.is_some() || self.opts.spool.is_some() {
            // The SDK's SessionStore carries the sidecar as an `agent_metadata` entry.
            let mut e = json!({"type": "agent_metadata"});
            if let (Value::Object(e), Value::Object(src)) = (&mut e, &meta) {
                for (k, v) in src {
                    e.entry(k.clone()).or_insert_with(|| v.clone());
                }
            }
            if let Some(s) = &self.opts.spool {
                s.push(&path, e.clone());
            }
            if let Some(m) = &self.opts.mirror {
                m.push(&path, e);
            }
        }
        Ok(Transcript {
            file,
            files: self.files.clone(),
            ctx: self.ctx.for_subagent(agent_id),
            leaf: None,
            opts: self.opts.clone(),
        })
    }

    fn write(&mut self, mut entry: Value) -> Result<()> {
        self.opts.redactor.redact(&mut entry);
        self.file.append(&entry)?;
        if let Some(s) = &self.opts.spool {
            s.push(self.file.path(), entry.clone());
        }
        if let Some(m) = &self.opts.mirror {
            m.push(self.file.path(), entry);
        }
        Ok(())
    }
}

/// `user`, `assistant`, `system`, `progress`, `attachment` entries with a uuid: the ones
/// linked by `parentUuid`.
pub fn is_chain_entry(entry: &Value) -> bool {
    matches!(
        entry.get("type").and_then(Value::as_str),
        Some("user" | "assistant" | "system" | "progress" | "attachment")
    ) && entry.get("uuid").is_some_and(Value::is_string)
}

fn write_meta(path: &Path, meta: &Value) -> Result<()> {
    let mut f = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)
        .map_err(|e| StoreError::io("cannot open", path, e))?;
    let mut bytes = serde_json::to_vec(meta)?;
    bytes.push(b'\n');
    f.write_all(&bytes)
        .map_err(|e| StoreError::io("cannot write", path, e))
}

#[cfg(test)]
mod handle_pool_tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn many_transcripts_share_a_bounded_pool_and_lose_no_line() {
        let dir = tempfile::tempdir().unwrap();
        let n = handles::CAPACITY * 3;
        let mut files: Vec<TranscriptFile> = (0..n)
            .map(|i| TranscriptFile::open(&dir.path().join(format!("{i}.jsonl"))).unwrap())
            .collect();
        for round in 0..3 {
            for f in &mut files {
                f.append(&json!({"round": round})).unwrap();
            }
        }
        // Other tests of this process write through the same pool: it is bounded, whoever
        // filled it.
        assert!(handles::open_count() <= handles::CAPACITY);
        for i in 0..n {
            let text = std::fs::read_to_string(dir.path().join(format!("{i}.jsonl"))).unwrap();
            let rounds: Vec<Value> = text
                .lines()
                .map(|l| serde_json::from_str::<Value>(l).unwrap()["round"].clone())
                .collect();
            assert_eq!(rounds, vec![json!(0), json!(1), json!(2)], "file {i}");
        }
        // A released handle is reopened on the next entry: a replaced file gets it, also
        // when the release spells the path another way that `Path` calls equal.
        let path = dir.path().join("0.jsonl");
        files[0].append(&json!({"round": 3})).unwrap(); // now the pool's newest handle
        let spelled = PathBuf::from(format!("{}//./0.jsonl", dir.path().display()));
        handles::release(&spelled);
        std::fs::remove_file(&path).unwrap();
        files[0].append(&json!({"round": 4})).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "{\"round\":4}\n");
    }
}
