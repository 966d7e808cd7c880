//! Where dcl reads and writes: dcl home, the client's home, and which one holds transcripts
//! (docs/protocol.md "dcl home", "client home", "where transcripts go").

use std::path::{Path, PathBuf};

/// The client family driving dcl; it decides the client home, the project folder and the
/// long-path hash of project keys.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Dialect {
    Claude,
    Qoder,
}

impl Dialect {
    /// `QODER_AGENT_SDK_ENTRYPOINT` set (non-empty) means Qoder; anything else is Claude.
    pub fn from_env(env: impl Fn(&str) -> Option<String>) -> Dialect {
        if non_empty(env("QODER_AGENT_SDK_ENTRYPOINT")).is_some() {
            Dialect::Qoder
        } else {
            Dialect::Claude
        }
    }

    /// The environment variable that moves the client home.
    pub fn config_dir_env(self) -> &'static str {
        match self {
            Dialect::Claude => "CLAUDE_CONFIG_DIR",
            Dialect::Qoder => "QODER_CONFIG_DIR",
        }
    }

    /// The client's folder name, both under the user's home and in a project.
    pub fn folder(self) -> &'static str {
        match self {
            Dialect::Claude => ".claude",
            Dialect::Qoder => ".qoder",
        }
    }
}

/// The user's home directory from an environment: `HOME`; on Windows, which has no `HOME`
/// of its own, `USERPROFILE`, else `HOMEDRIVE` + `HOMEPATH` — where the reference CLI's
/// `os.homedir()` looks, so `~/.claude` is the same folder for both.
pub fn user_home(env: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    user_home_on(env, cfg!(windows))
}

/// [`user_home`] as on Windows (`windows`) or elsewhere, whatever this build's OS.
pub fn user_home_on(env: impl Fn(&str) -> Option<String>, windows: bool) -> Option<PathBuf> {
    if let Some(home) = non_empty(env("HOME")) {
        return Some(PathBuf::from(home));
    }
    if !windows {
        return None;
    }
    non_empty(env("USERPROFILE"))
        .or_else(|| Some(non_empty(env("HOMEDRIVE"))? + &non_empty(env("HOMEPATH"))?))
        .map(PathBuf::from)
}

/// dcl's own folder name, under the user's home and in a project.
pub const DCL_FOLDER: &str = ".dcl";

/// The homes one session reads and writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Homes {
    pub dialect: Dialect,
    /// `--data-dir` > `DCL_CONFIG_DIR` > `~/.dcl`; `None` without any of them or a `HOME`.
    pub dcl_home: Option<PathBuf>,
    /// True when `--data-dir` or `DCL_CONFIG_DIR` chose dcl home.
    pub dcl_home_explicit: bool,
    /// `CLAUDE_CONFIG_DIR` > `~/.claude` (Qoder: `QODER_CONFIG_DIR` > `~/.qoder`).
    pub client_home: Option<PathBuf>,
    /// True when the client's config-dir variable chose the client home.
    pub client_home_explicit: bool,
    /// True when the client's SDK launched dcl (`CLAUDE_CODE_ENTRYPOINT` starting `sdk-`;
    /// Qoder: `QODER_AGENT_SDK_ENTRYPOINT` set).
    pub sdk_driven: bool,
}

impl Homes {
    /// Resolves the homes from `--data-dir` and the session's environment. Relative
    /// directories are taken against `cwd`, so every path the store hands out is absolute
    /// (the SDKs match mirror paths against their own absolute projects directory).
    pub fn resolve(
        data_dir: Option<&Path>,
        env: impl Fn(&str) -> Option<String>,
        cwd: &Path,
    ) -> Homes {
        let dialect = Dialect::from_env(&env);
        let absolute = |p: PathBuf| if p.is_absolute() { p } else { cwd.join(p) };
        let user_home = user_home(&env);

        let explicit_dcl = data_dir
            .filter(|p| !p.as_os_str().is_empty())
            .map(Path::to_path_buf)
            .or_else(|| non_empty(env("DCL_CONFIG_DIR")).map(PathBuf::from));
        let dcl_home_explicit = explicit_dcl.is_some();
        let dcl_home = explicit_dcl
            .or_else(|| user_home.as_ref().map(|h| h.join(DCL_FOLDER)))
            .map(absolute);

        let explicit_client = non_empty(env(dialect.config_dir_env())).map(PathBuf::from);
        let client_home_explicit = explicit_client.is_some();
        let client_home = explicit_client
            .or_else(|| user_home.as_ref().map(|h| h.join(dialect.folder())))
            .map(absolute);

        let sdk_driven = match dialect {
            Dialect::Claude => {
                non_empty(env("CLAUDE_CODE_ENTRYPOINT")).is_some_and(|e| e.starts_with("sdk-"))
            }
            Dialect::Qoder => true,
        };
        Homes {
            dialect,
            dcl_home,
            dcl_home_explicit,
            client_home,
            client_home_explicit,
            sdk_driven,
        }
    }

    /// The home new transcripts are written under: an explicit dcl home always; else the
    /// client home when the client's SDK drives dcl or its config dir is set; else dcl home.
    pub fn transcript_home(&self) -> Option<&Path> {
        if self.dcl_home_explicit {
            return self.dcl_home.as_deref();
        }
        if self.sdk_driven || self.client_home_explicit {
            return self.client_home.as_deref().or(self.dcl_home.as_deref());
        }
        self.dcl_home.as_deref().or(self.client_home.as_deref())
    }

    /// Every home `--resume` / `--continue` look in, the transcript home first.
    pub fn read_homes(&self) -> Vec<&Path> {
        let mut out: Vec<&Path> = Vec::new();
        for h in [
            self.transcript_home(),
            self.dcl_home.as_deref(),
            self.client_home.as_deref(),
        ]
        .into_iter()
        .flatten()
        {
            if !out.contains(&h) {
                out.push(h);
            }
        }
        out
    }

    /// The user-level settings files, lowest precedence first: client home, then dcl home.
    pub fn user_settings_files(&self) -> Vec<PathBuf> {
        [self.client_home.as_deref(), self.dcl_home.as_deref()]
            .into_iter()
            .flatten()
            .map(|h| h.join("settings.json"))
            .collect()
    }

    /// The user-level folders holding `agents/`, `skills/`, `commands/`, `output-styles/`,
    /// lowest precedence first.
    pub fn user_folders(&self) -> Vec<&Path> {
        [self.client_home.as_deref(), self.dcl_home.as_deref()]
            .into_iter()
            .flatten()
            .collect()
    }

    /// The project folders under `cwd`, lowest precedence first: the client's, then `.dcl/`.
    pub fn project_folders(&self, cwd: &Path) -> Vec<PathBuf> {
        vec![cwd.join(self.dialect.folder()), cwd.join(DCL_FOLDER)]
    }
}

fn non_empty(v: Option<String>) -> Option<String> {
    v.filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| map.get(k).cloned()
    }

    #[test]
    fn windows_home_is_the_user_profile_as_the_reference_finds_it() {
        let profile = env(&[
            ("USERPROFILE", r"C:\Users\ann"),
            ("HOMEDRIVE", "D:"),
            ("HOMEPATH", r"\x"),
        ]);
        assert_eq!(
            user_home_on(&profile, true),
            Some(PathBuf::from(r"C:\Users\ann"))
        );
        let drive = env(&[("HOMEDRIVE", "D:"), ("HOMEPATH", r"\Users\ann")]);
        assert_eq!(
            user_home_on(&drive, true),
            Some(PathBuf::from(r"D:\Users\ann"))
        );
        // A HOME set on Windows (Git Bash, MSYS) still wins.
        let both = env(&[("HOME", "/c/home"), ("USERPROFILE", r"C:\Users\ann")]);
        assert_eq!(user_home_on(&both, true), Some(PathBuf::from("/c/home")));
        assert_eq!(user_home_on(env(&[("HOMEDRIVE", "D:")]), true), None);
    }

    #[test]
    fn elsewhere_only_home_names_the_home() {
        let profile = env(&[
            ("USERPROFILE", "/p"),
            ("HOMEDRIVE", "D:"),
            ("HOMEPATH", "/x"),
        ]);
        assert_eq!(user_home_on(&profile, false), None);
        assert_eq!(user_home_on(env(&[("HOME", "")]), false), None);
        assert_eq!(
            user_home_on(env(&[("HOME", "/u")]), false),
            Some(PathBuf::from("/u"))
        );
    }

    #[test]
    fn plain_cli_writes_under_dcl_home() {
        let h = Homes::resolve(None, env(&[("HOME", "/u")]), Path::new("/w"));
        assert_eq!(h.dialect, Dialect::Claude);
        assert_eq!(h.dcl_home.as_deref(), Some(Path::new("/u/.dcl")));
        assert_eq!(h.client_home.as_deref(), Some(Path::new("/u/.claude")));
        assert_eq!(h.transcript_home(), Some(Path::new("/u/.dcl")));
        assert_eq!(
            h.read_homes(),
            vec![Path::new("/u/.dcl"), Path::new("/u/.claude")]
        );
        assert_eq!(
            h.user_settings_files(),
            vec![
                PathBuf::from("/u/.claude/settings.json"),
                PathBuf::from("/u/.dcl/settings.json")
            ]
        );
    }

    #[test]
    fn sdk_entrypoint_or_config_dir_writes_under_client_home() {
        let h = Homes::resolve(
            None,
            env(&[("HOME", "/u"), ("CLAUDE_CODE_ENTRYPOINT", "sdk-py")]),
            Path::new("/w"),
        );
        assert_eq!(h.transcript_home(), Some(Path::new("/u/.claude")));
        let h = Homes::resolve(
            None,
            env(&[("HOME", "/u"), ("CLAUDE_CODE_ENTRYPOINT", "cli")]),
            Path::new("/w"),
        );
        assert_eq!(h.transcript_home(), Some(Path::new("/u/.dcl")));
        let h = Homes::resolve(
            None,
            env(&[("HOME", "/u"), ("CLAUDE_CONFIG_DIR", "/tmp/cfg")]),
            Path::new("/w"),
        );
        assert_eq!(h.transcript_home(), Some(Path::new("/tmp/cfg")));
        let h = Homes::resolve(
            None,
            env(&[("HOME", "/u"), ("QODER_AGENT_SDK_ENTRYPOINT", "sdk-py")]),
            Path::new("/w"),
        );
        assert_eq!(h.dialect, Dialect::Qoder);
        assert_eq!(h.transcript_home(), Some(Path::new("/u/.qoder")));
        let h = Homes::resolve(
            None,
            env(&[
                ("HOME", "/u"),
                ("QODER_AGENT_SDK_ENTRYPOINT", "sdk-py"),
                ("QODER_CONFIG_DIR", "q"),
                ("CLAUDE_CONFIG_DIR", "/ignored"),
            ]),
            Path::new("/w"),
        );
        assert_eq!(h.client_home.as_deref(), Some(Path::new("/w/q")));
    }

    #[test]
    fn explicit_dcl_home_always_wins() {
        let e = env(&[
            ("HOME", "/u"),
            ("CLAUDE_CODE_ENTRYPOINT", "sdk-ts"),
            ("CLAUDE_CONFIG_DIR", "/c"),
            ("DCL_CONFIG_DIR", "/d"),
        ]);
        let h = Homes::resolve(None, &e, Path::new("/w"));
        assert_eq!(h.transcript_home(), Some(Path::new("/d")));
        let h = Homes::resolve(Some(Path::new("data")), &e, Path::new("/w"));
        assert_eq!(h.dcl_home.as_deref(), Some(Path::new("/w/data")));
        assert_eq!(h.transcript_home(), Some(Path::new("/w/data")));
        assert_eq!(h.read_homes(), vec![Path::new("/w/data"), Path::new("/c")]);
    }

    #[test]
    fn empty_values_count_as_unset_and_no_home_means_none() {
        let h = Homes::resolve(
            Some(Path::new("")),
            env(&[("DCL_CONFIG_DIR", ""), ("CLAUDE_CONFIG_DIR", "")]),
            Path::new("/w"),
        );
        assert_eq!(h.dcl_home, None);
        assert_eq!(h.client_home, None);
        assert_eq!(h.transcript_home(), None);
        assert!(h.read_homes().is_empty());
    }
}
