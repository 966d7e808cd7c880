//! The `sandbox` settings block, in the reference CLI's names (what claude-agent-sdk's
//! `sandbox` option sends inside `--settings`), plus dcl's `filesystem` extension.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

/// Paths under the home directory whose reads the sandbox refuses by default: keys,
/// cloud and registry credentials, and the agents' own login files.
pub const DEFAULT_DENY_READ: &[&str] = &[
    ".ssh",
    ".aws",
    ".gnupg",
    ".azure",
    ".kube",
    ".docker/config.json",
    ".config/gcloud",
    ".config/gh",
    ".netrc",
    ".git-credentials",
    ".npmrc",
    ".pypirc",
    ".cargo/credentials.toml",
    ".cargo/credentials",
    ".claude/.credentials.json",
    ".qoder",
];

/// A `sandbox` block that is not of the documented shape.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("sandbox.{key}: {problem}")]
pub struct SettingsError {
    pub key: String,
    pub problem: String,
}

/// What the settings ask of the sandbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxSettings {
    pub enabled: bool,
    /// Programs run outside the sandbox (`["docker", "git"]`).
    pub excluded_commands: Vec<String>,
    /// Whether a call's `dangerouslyDisableSandbox: true` is honoured (default true).
    pub allow_unsandboxed_commands: bool,
    /// Hosts the network may reach; empty means no network.
    pub allowed_domains: Vec<String>,
    /// Unix socket paths a sandboxed command may connect to (`network.allowUnixSockets`,
    /// the reference's name); empty means no unix sockets at all (`socketpair` aside).
    pub allow_unix_sockets: Vec<String>,
    /// Refuse to run sandboxed commands where a protection is missing on this machine,
    /// rather than running them with a warning.
    pub fail_if_unavailable: bool,
    /// Extra read-denied paths (`~/` expands to the home directory).
    pub deny_read: Vec<String>,
    /// Extra writable directories besides the working directory and `--add-dir`s.
    pub allow_write: Vec<String>,
    /// Keys that were given but that dcl does not act on (named in a warning).
    pub not_acted_on: Vec<String>,
}

impl Default for SandboxSettings {
    fn default() -> Self {
        SandboxSettings {
            enabled: false,
            excluded_commands: Vec::new(),
            allow_unsandboxed_commands: true,
            allowed_domains: Vec::new(),
            allow_unix_sockets: Vec::new(),
            fail_if_unavailable: false,
            deny_read: Vec::new(),
            allow_write: Vec::new(),
            not_acted_on: Vec::new(),
        }
    }
}

impl SandboxSettings {
    /// Reads the merged settings' `sandbox` value (absent means off).
    pub fn from_value(value: Option<&Value>) -> Result<SandboxSettings, SettingsError> {
        let mut out = SandboxSettings::default();
        let Some(value) = value else {
            return Ok(out);
        };
        let obj = value
            .as_object()
            .ok_or_else(|| err("", "must be an object"))?;
        for (key, v) in obj {
            match key.as_str() {
                "enabled" => out.enabled = boolean(key, v)?,
                "excludedCommands" => out.excluded_commands = strings(key, v)?,
                "allowUnsandboxedCommands" => out.allow_unsandboxed_commands = boolean(key, v)?,
                "failIfUnavailable" => out.fail_if_unavailable = boolean(key, v)?,
                "network" => out.read_network(v)?,
                "filesystem" => out.read_filesystem(v)?,
                // Accepted; what they change does not exist in dcl (yet).
                "autoAllowBashIfSandboxed" | "ignoreViolations" | "enableWeakerNestedSandbox" => {
                    out.not_acted_on.push(key.clone())
                }
                _ => out.not_acted_on.push(key.clone()),
            }
        }
        Ok(out)
    }

    fn read_network(&mut self, v: &Value) -> Result<(), SettingsError> {
        let obj = object("network", v)?;
        for (key, v) in obj {
            let dotted = format!("network.{key}");
            match key.as_str() {
                "allowedDomains" => self.allowed_domains = strings(&dotted, v)?,
                "allowUnixSockets" => self.allow_unix_sockets = strings(&dotted, v)?,
                _ => self.not_acted_on.push(dotted),
            }
        }
        Ok(())
    }

    fn read_filesystem(&mut self, v: &Value) -> Result<(), SettingsError> {
        let obj = object("filesystem", v)?;
        for (key, v) in obj {
            let dotted = format!("filesystem.{key}");
            match key.as_str() {
                "denyRead" => self.deny_read = strings(&dotted, v)?,
                "allowWrite" => self.allow_write = strings(&dotted, v)?,
                _ => self.not_acted_on.push(dotted),
            }
        }
        Ok(())
    }

    /// Whether `command` is run outside the sandbox by `excludedCommands`: only when the
    /// shell parser sees every simple command of the line, each one's program (and the
    /// words a multi-word entry names) is excluded, and nothing else in the line can act
    /// on its own — no substitution, no redirect to a file, no `VAR=value` prefix (which
    /// can run code: `LD_PRELOAD`, `GIT_SSH_COMMAND`, `PAGER`). Anything else runs
    /// sandboxed, so `git --version; echo x > /outside/f` is confined as a whole.
    pub fn is_excluded(&self, command: &str) -> bool {
        if self.excluded_commands.is_empty() {
            return false;
        }
        let analysis = dcl_shell::analysis::analyse(command);
        if !analysis.is_fully_analysed() || analysis.commands.is_empty() {
            return false;
        }
        analysis.commands.iter().all(|c| {
            c.is_plain()
                && c.redirects.iter().all(harmless_redirect)
                && self.excluded_commands.iter().any(|entry| {
                    let entry: Vec<&str> = entry.split_whitespace().collect();
                    let argv = c.argv();
                    !entry.is_empty()
                        && argv.len() >= entry.len()
                        && argv[..entry.len()] == entry[..]
                })
        })
    }

    /// The read-denied paths for `home`: the defaults plus `filesystem.denyRead`.
    pub fn deny_read_paths(&self, home: Option<&Path>) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = Vec::new();
        if let Some(home) = home {
            out.extend(DEFAULT_DENY_READ.iter().map(|p| home.join(p)));
        }
        out.extend(self.deny_read.iter().filter_map(|p| expand_path(p, home)));
        out
    }

    /// `filesystem.allowWrite`, expanded.
    pub fn allow_write_paths(&self, home: Option<&Path>) -> Vec<PathBuf> {
        self.allow_write
            .iter()
            .filter_map(|p| expand_path(p, home))
            .collect()
    }
}

/// A redirect that writes no file: a descriptor copy or close (`2>&1`, `>&-`), or
/// `/dev/null`.
fn harmless_redirect(r: &dcl_shell::analysis::Redirect) -> bool {
    let dup = matches!(r.op.as_str(), ">&" | "<&")
        && r.target.is_plain()
        && (r.target.value == "-" || r.target.value.chars().all(|c| c.is_ascii_digit()));
    dup || (r.target.is_plain() && r.target.value == "/dev/null")
}

/// `~/x` against `home`, absolute paths as they are; relative ones mean nothing here.
pub(crate) fn expand_path(path: &str, home: Option<&Path>) -> Option<PathBuf> {
    if let Some(rest) = path.strip_prefix("~/") {
        return home.map(|h| h.join(rest));
    }
    if path == "~" {
        return home.map(Path::to_path_buf);
    }
    let p = PathBuf::from(path);
    p.is_absolute().then_some(p)
}

fn err(key: &str, problem: &str) -> SettingsError {
    SettingsError {
        key: key.to_string(),
        problem: problem.to_string(),
    }
}

fn object<'a>(key: &str, v: &'a Value) -> Result<&'a Map<String, Value>, SettingsError> {
    v.as_object().ok_or_else(|| err(key, "must be an object"))
}

fn boolean(key: &str, v: &Value) -> Result<bool, SettingsError> {
    v.as_bool().ok_or_else(|| err(key, "must be true or false"))
}

fn strings(key: &str, v: &Value) -> Result<Vec<String>, SettingsError> {
    let items = v
        .as_array()
        .ok_or_else(|| err(key, "must be an array of strings"))?;
    items
        .iter()
        .map(|i| {
            i.as_str()
                .map(str::to_string)
                .ok_or_else(|| err(key, "must be an array of strings"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_the_reference_shape_and_names_what_it_ignores() {
        let s = SandboxSettings::from_value(Some(&json!({
            "enabled": true,
            "excludedCommands": ["docker", "npm run"],
            "allowUnsandboxedCommands": false,
            "network": {"allowedDomains": ["example.com"], "allowLocalBinding": true},
            "filesystem": {"denyRead": ["~/secret", "/etc/shadow", "relative"]},
            "ignoreViolations": {"*": ["/etc/hosts"]}
        })))
        .unwrap();
        assert!(s.enabled);
        assert!(!s.allow_unsandboxed_commands);
        assert_eq!(s.allowed_domains, vec!["example.com"]);
        assert_eq!(
            s.not_acted_on,
            vec!["network.allowLocalBinding", "ignoreViolations"]
        );
        let home = Path::new("/h");
        let deny = s.deny_read_paths(Some(home));
        assert!(deny.contains(&PathBuf::from("/h/.ssh")));
        assert!(deny.contains(&PathBuf::from("/h/secret")));
        assert!(deny.contains(&PathBuf::from("/etc/shadow")));
        assert!(!deny.iter().any(|p| p.ends_with("relative")));
    }

    #[test]
    fn bad_shapes_are_errors_naming_the_key() {
        let e = SandboxSettings::from_value(Some(&json!({"enabled": "yes"}))).unwrap_err();
        assert_eq!(e.key, "enabled");
        let e = SandboxSettings::from_value(Some(&json!({"excludedCommands": [1]}))).unwrap_err();
        assert_eq!(
            e.to_string(),
            "sandbox.excludedCommands: must be an array of strings"
        );
        assert!(SandboxSettings::from_value(None).unwrap() == SandboxSettings::default());
    }

    #[test]
    fn excluded_commands_match_word_wise() {
        let s = SandboxSettings {
            excluded_commands: vec!["git".into(), "npm run".into()],
            ..Default::default()
        };
        assert!(s.is_excluded("git status"));
        assert!(!s.is_excluded("gitx status"));
        assert!(s.is_excluded("npm run build"));
        assert!(!s.is_excluded("npm test"));
        assert!(!s.is_excluded("echo git"));
        assert!(s.is_excluded("git status && git log 2>&1 | git hash-object --stdin"));
        assert!(s.is_excluded("git diff > /dev/null"));
    }

    #[test]
    fn a_line_is_excluded_only_when_every_part_is() {
        let s = SandboxSettings {
            excluded_commands: vec!["git".into()],
            ..Default::default()
        };
        for line in [
            "git --version; echo x > /outside/f",
            "git status && rm -rf /outside",
            "git log | sh",
            "git log > /outside/f",
            "git log $(touch /outside/f)",
            "git log `touch /outside/f`",
            "GIT_DIR=x git log",
            "LD_PRELOAD=/tmp/x.so git status",
            "git -c core.pager=evil log",
            "(git log; echo x > /outside/f)",
            "git status & echo x > /outside/f",
            "if git status; then echo x > /o/f; fi",
            "",
            "git log <<EOF\n$(touch /o/f)\nEOF",
        ] {
            assert!(!s.is_excluded(line), "{line}");
        }
    }
}
