//! Secrets never reach a transcript (or a mirror frame): the values of dcl's credential
//! variables, and of any variable whose name says it holds a secret, are replaced in every
//! string of an entry before it is written.

use serde_json::Value;

/// What replaces a secret.
pub const REDACTED: &str = "[REDACTED]";

/// Variables that always hold credentials.
const CREDENTIAL_VARS: &[&str] = &[
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "OPENAI_API_KEY",
    "DCL_API_KEY",
    "DEEPSEEK_API_KEY",
    "DASHSCOPE_API_KEY",
    "QODER_PERSONAL_ACCESS_TOKEN",
];

/// Name parts that mark a variable as secret (docs/protocol.md "tool environment").
const SECRET_NAME_PARTS: &[&str] = &["KEY", "SECRET", "TOKEN", "PASSWORD"];

/// Shorter values are too likely to be ordinary words to redact everywhere.
const MIN_SECRET_LEN: usize = 8;

#[derive(Debug, Clone, Default)]
pub struct Redactor {
    secrets: Vec<String>,
}

impl Redactor {
    /// The secrets found in an environment.
    pub fn from_env<'a>(vars: impl IntoIterator<Item = (&'a str, &'a str)>) -> Redactor {
        let mut r = Redactor::default();
        for (name, value) in vars {
            let upper = name.to_ascii_uppercase();
            if CREDENTIAL_VARS.contains(&upper.as_str())
                || SECRET_NAME_PARTS.iter().any(|p| upper.contains(p))
            {
                r.add(value);
            }
        }
        r
    }

    /// Adds one secret (e.g. the Qoder token read from its payload file).
    pub fn add(&mut self, secret: &str) {
        let s = secret.trim();
        if s.len() >= MIN_SECRET_LEN && !self.secrets.iter().any(|x| x == s) {
            self.secrets.push(s.to_string());
            // Longest first, so a secret containing another is replaced whole.
            self.secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
        }
    }

    pub fn is_empty(&self) -> bool {
        self.secrets.is_empty()
    }

    /// Replaces every secret in every string (keys included) of `v`.
    pub fn redact(&self, v: &mut Value) {
        if self.secrets.is_empty() {
            return;
        }
        match v {
            Value::String(s) => self.redact_str(s),
            Value::Array(a) => a.iter_mut().for_each(|x| self.redact(x)),
            Value::Object(m) => {
                if m.keys().any(|k| self.contains_secret(k)) {
                    let old = std::mem::take(m);
                    for (mut k, mut x) in old {
                        self.redact_str(&mut k);
                        self.redact(&mut x);
                        m.insert(k, x);
                    }
                } else {
                    m.values_mut().for_each(|x| self.redact(x));
                }
            }
            _ => {}
        }
    }

    fn contains_secret(&self, s: &str) -> bool {
        self.secrets.iter().any(|x| s.contains(x.as_str()))
    }

    fn redact_str(&self, s: &mut String) {
        for secret in &self.secrets {
            if s.contains(secret.as_str()) {
                *s = s.replace(secret.as_str(), REDACTED);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn credentials_are_replaced_everywhere_and_ordinary_text_is_kept() {
        let r = Redactor::from_env([
            ("ANTHROPIC_API_KEY", "sk-ant-secret-123456"),
            ("MY_SERVICE_TOKEN", "tok_abcdefgh"),
            ("PATH", "/usr/bin:/bin"),
            ("SHORT_KEY", "abc"),
        ]);
        let mut v = json!({
            "message": {"content": [{"type": "tool_result", "content": "key=sk-ant-secret-123456 and tok_abcdefgh"}]},
            "sk-ant-secret-123456": 1,
            "path": "/usr/bin:/bin",
            "word": "abc",
        });
        r.redact(&mut v);
        let text = v.to_string();
        assert!(!text.contains("sk-ant-secret-123456"), "{text}");
        assert!(!text.contains("tok_abcdefgh"), "{text}");
        assert_eq!(
            v["message"]["content"][0]["content"],
            "key=[REDACTED] and [REDACTED]"
        );
        // Positive twin: values that are not secrets are untouched.
        assert_eq!(v["path"], "/usr/bin:/bin");
        assert_eq!(v["word"], "abc");
        assert_eq!(v["[REDACTED]"], 1);
    }
}
