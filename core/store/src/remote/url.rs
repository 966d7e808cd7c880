//! `--session-store <url>` (or the settings key `sessionStore`): which store a session
//! drains to. Credentials come from the URL or, when the URL has no password, from
//! `DCL_SESSION_STORE_PASSWORD` (Postgres also honours `PGPASSWORD`). A URL is only ever
//! shown through [`StoreUrl::redacted`].

use std::path::PathBuf;

use super::{BackendError, BackendResult};

/// The default Postgres table: the SDK reference adapter's, so both can share it.
pub const DEFAULT_TABLE: &str = "claude_session_store";

/// A parsed store URL.
#[derive(Clone, PartialEq, Eq)]
pub enum StoreUrl {
    /// `file:` — this machine's transcripts only (today's behaviour; nothing drains).
    Local,
    /// `file:/dir` or `file:///dir` — a directory in the reference layout, as a store.
    File(PathBuf),
    /// `postgres://…` / `postgresql://…`; `?table=` names the table (default
    /// [`DEFAULT_TABLE`]).
    Postgres { url: String, table: String },
    /// `redis://…` / `rediss://…` (TLS); `?prefix=` sets the key prefix.
    Redis { url: String, prefix: String },
}

/// Never prints credentials.
impl std::fmt::Debug for StoreUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.redacted())
    }
}

impl StoreUrl {
    /// Parses `text`; `env` supplies `DCL_SESSION_STORE_PASSWORD` when the URL has none.
    pub fn parse(text: &str, env: impl Fn(&str) -> Option<String>) -> BackendResult<StoreUrl> {
        let text = text.trim();
        if text.is_empty() || text == "file:" || text == "file" {
            return Ok(StoreUrl::Local);
        }
        if let Some(rest) = text.strip_prefix("file:") {
            let path = rest.strip_prefix("//").unwrap_or(rest);
            if !path.starts_with('/') {
                return Err(BackendError::Invalid(format!(
                    "file: store needs an absolute path, got {path:?}"
                )));
            }
            return Ok(StoreUrl::File(PathBuf::from(path)));
        }
        let mut u = url::Url::parse(text)
            .map_err(|e| BackendError::Invalid(format!("session store URL: {e}")))?;
        let scheme = u.scheme().to_string();
        // Our own parameters are taken out; the rest goes to the driver.
        let mut own = None;
        let own_name = match scheme.as_str() {
            "postgres" | "postgresql" => "table",
            "redis" | "rediss" => "prefix",
            other => {
                return Err(BackendError::Invalid(format!(
                    "session store URL scheme {other:?}: expected postgres://, redis://, rediss:// or file:"
                )));
            }
        };
        let kept: Vec<(String, String)> = u
            .query_pairs()
            .filter_map(|(k, v)| {
                if k == own_name {
                    own = Some(v.into_owned());
                    None
                } else {
                    Some((k.into_owned(), v.into_owned()))
                }
            })
            .collect();
        if kept.is_empty() {
            u.set_query(None);
        } else {
            u.query_pairs_mut().clear().extend_pairs(kept);
        }
        if u.password().is_none()
            && let Some(p) = env("DCL_SESSION_STORE_PASSWORD").filter(|p| !p.is_empty())
        {
            u.set_password(Some(&p)).map_err(|()| {
                BackendError::Invalid("session store URL takes no password".into())
            })?;
        }
        Ok(match own_name {
            "table" => {
                let table = own.unwrap_or_else(|| DEFAULT_TABLE.to_string());
                check_ident(&table)?;
                StoreUrl::Postgres {
                    url: u.to_string(),
                    table,
                }
            }
            _ => StoreUrl::Redis {
                url: u.to_string(),
                prefix: own.unwrap_or_default(),
            },
        })
    }

    /// True for `file:` (no store).
    pub fn is_local(&self) -> bool {
        matches!(self, StoreUrl::Local)
    }

    /// The password the URL carries (to be redacted from transcripts and logs).
    pub fn secret(&self) -> Option<String> {
        match self {
            StoreUrl::Postgres { url, .. } | StoreUrl::Redis { url, .. } => url::Url::parse(url)
                .ok()
                .and_then(|u| u.password().map(decode))
                .filter(|p| !p.is_empty()),
            _ => None,
        }
    }

    /// The URL with its password replaced by `***`.
    pub fn redacted(&self) -> String {
        match self {
            StoreUrl::Local => "file:".into(),
            StoreUrl::File(p) => format!("file:{}", p.display()),
            StoreUrl::Postgres { url, .. } | StoreUrl::Redis { url, .. } => redact_url(url),
        }
    }
}

/// A URL text with its password (if any) replaced by `***`; text that is not a URL is
/// returned whole only when it cannot hold credentials (no `@`).
pub fn redact_url(text: &str) -> String {
    match url::Url::parse(text) {
        Ok(mut u) => {
            if u.password().is_some() {
                let _ = u.set_password(Some("***"));
            }
            u.to_string()
        }
        Err(_) if text.contains('@') => "***".into(),
        Err(_) => text.to_string(),
    }
}

fn decode(p: &str) -> String {
    // Percent-decoding by hand: the url crate keeps the password encoded.
    let bytes = p.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Some(b) = std::str::from_utf8(&bytes[i + 1..i + 3])
                .ok()
                .and_then(|h| u8::from_str_radix(h, 16).ok())
        {
            out.push(b);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Table names are interpolated into SQL (identifiers cannot be bound): plain identifiers
/// only.
pub fn check_ident(name: &str) -> BackendResult<()> {
    let ok = !name.is_empty()
        && name.len() <= 40
        && name
            .bytes()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == b'_')
        && name.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_');
    if ok {
        Ok(())
    } else {
        Err(BackendError::Invalid(format!(
            "table {name:?} must match [A-Za-z_][A-Za-z0-9_]* (at most 40 characters)"
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_env(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn schemes_parse_and_own_parameters_are_taken_out() {
        assert_eq!(StoreUrl::parse("file:", no_env).unwrap(), StoreUrl::Local);
        assert_eq!(
            StoreUrl::parse("file:///srv/s", no_env).unwrap(),
            StoreUrl::File("/srv/s".into())
        );
        assert!(StoreUrl::parse("file:rel", no_env).is_err());
        let StoreUrl::Postgres { url, table } = StoreUrl::parse(
            "postgres://u:p@127.0.0.1:5/db?table=t1&sslmode=disable",
            no_env,
        )
        .unwrap() else {
            panic!("not postgres")
        };
        assert_eq!(table, "t1");
        assert_eq!(url, "postgres://u:p@127.0.0.1:5/db?sslmode=disable");
        assert!(StoreUrl::parse("postgres://h/db?table=x;drop", no_env).is_err());
        let StoreUrl::Redis { prefix, .. } =
            StoreUrl::parse("redis://127.0.0.1:6379/0?prefix=dcl", no_env).unwrap()
        else {
            panic!("not redis")
        };
        assert_eq!(prefix, "dcl");
        assert!(StoreUrl::parse("mysql://h/db", no_env).is_err());
    }

    #[test]
    fn passwords_never_show_and_come_from_the_environment() {
        let u = StoreUrl::parse("postgres://dcl:s%40cret@h/db", no_env).unwrap();
        assert_eq!(u.secret().as_deref(), Some("s@cret"));
        assert!(!u.redacted().contains("cret"), "{}", u.redacted());
        assert!(!format!("{u:?}").contains("cret"));
        let env = |k: &str| (k == "DCL_SESSION_STORE_PASSWORD").then(|| "hunter2".to_string());
        let u = StoreUrl::parse("redis://dcl@h:1", env).unwrap();
        assert_eq!(u.secret().as_deref(), Some("hunter2"));
        assert!(!u.redacted().contains("hunter2"));
        assert_eq!(redact_url("not a url with user@host"), "***");
    }
}
