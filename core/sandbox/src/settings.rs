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

    /// Whether `command` is run outside the sandbox by `excludedCommands`: its first word
    /// (after `VAR=value` prefixes) is one of them. Word-wise, so `git` does not exclude
    /// `gitx`.
    pub fn is_excluded(&self, command: &str) -> bool {
        let first = command
            .split_whitespace()
            .find(|w| !is_assignment(w))
            .unwrap_or("");
        self.excluded_commands.iter().any(|c| {
            let mut words = c.split_whitespace();
            match words.next() {
                Some(program) if program == first => {
                    // A multi-word entry (`npm run`) must match word for word.
                    let rest: Vec<&str> = words.collect();
                    let given: Vec<&str> = command
                        .split_whitespace()
                        .skip_while(|w| is_assignment(w))
                        .skip(1)
                        .take(rest.len())
                        .collect();
                    given == rest
                }
                _ => false,
            }
        })
    }

    /// The read-denied paths for `home`: the defaults plus `filesystem.denyRead`.
    pub fn deny_read_paths(&self, home: Option<&Path>) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = Vec::new();
        if let Some(home) = home {
            out.extend(DEFAULT_DENY_READ.iter().map(|p| home.join(p)));
        }
        out.extend(self.deny_read.iter().filter_map(|p| expand(p, home)));
        out
    }

    /// `filesystem.allowWrite`, expanded.
    pub fn allow_write_paths(&self, home: Option<&Path>) -> Vec<PathBuf> {
        self.allow_write
            .iter()
            .filter_map(|p| expand(p, home))
            .collect()
    }
}

fn is_assignment(word: &str) -> bool {
    match word.split_once('=') {
        Some((name, _)) => {
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        }
        None => false,
    }
}

fn expand(path: &str, home: Option<&Path>) -> Option<PathBuf> {
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
        assert!(s.is_excluded("GIT_DIR=x git log"));
        assert!(!s.is_excluded("gitx status"));
        assert!(s.is_excluded("npm run build"));
        assert!(!s.is_excluded("npm test"));
        assert!(!s.is_excluded("echo git"));
    }
}
