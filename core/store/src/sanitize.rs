//! Project keys: the reference CLI's directory name for a working directory
//! (`claude-protocol.md` §8, `qoder-protocol.md` §3.6).
//!
//! Both CLIs are JavaScript, so sanitising works on UTF-16 code units: every unit outside
//! `[0-9A-Za-z]` becomes `-`; a result over 200 units keeps 200 and appends `-` and a
//! base-36 32-bit hash of the unsanitised path. The hash differs by dialect: Claude's SDKs
//! use `(h << 5) - h + unit` from 0, Qoder's a DJB2-xor from 5381.

use std::path::Path;

use unicode_normalization::UnicodeNormalization;

use crate::home::Dialect;

/// Longest sanitised name kept whole.
pub const MAX_SANITIZED_LENGTH: usize = 200;

/// The project key of a working directory: real path, NFC, sanitised.
pub fn project_key(cwd: &Path, dialect: Dialect) -> String {
    sanitize_path(&canonical_cwd(cwd), dialect)
}

/// The real path of `cwd` in NFC, as the SDKs canonicalise it (the path as given when it
/// cannot be resolved).
pub fn canonical_cwd(cwd: &Path) -> String {
    let real = std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf());
    real.to_string_lossy().nfc().collect()
}

/// Sanitises one path string as the reference does.
pub fn sanitize_path(name: &str, dialect: Dialect) -> String {
    let units: Vec<u16> = name.encode_utf16().collect();
    let sanitized: String = units
        .iter()
        .map(|&u| match u8::try_from(u) {
            Ok(b) if b.is_ascii_alphanumeric() => char::from(b),
            _ => '-',
        })
        .collect();
    if sanitized.len() <= MAX_SANITIZED_LENGTH {
        return sanitized;
    }
    let hash = match dialect {
        Dialect::Claude => claude_hash(&units),
        Dialect::Qoder => qoder_hash(&units),
    };
    // `sanitized` is ASCII, so byte slicing is unit slicing.
    format!("{}-{}", &sanitized[..MAX_SANITIZED_LENGTH], base36(hash))
}

/// The prefix a long key's directory name starts with, whatever hash wrote it (the Claude
/// CLI itself uses a different hash from its SDKs; readers match on this prefix).
pub fn long_key_prefix(key: &str) -> Option<&str> {
    (key.len() > MAX_SANITIZED_LENGTH).then(|| &key[..MAX_SANITIZED_LENGTH])
}

fn claude_hash(units: &[u16]) -> u32 {
    let mut h: i32 = 0;
    for &u in units {
        h = h.wrapping_shl(5).wrapping_sub(h).wrapping_add(i32::from(u));
    }
    h.unsigned_abs()
}

fn qoder_hash(units: &[u16]) -> u32 {
    let mut h: u32 = 5381;
    for &u in units {
        h = h.wrapping_mul(33) ^ u32::from(u);
    }
    // The reference takes the absolute value of the signed 32-bit result.
    (h as i32).unsigned_abs()
}

fn base36(mut n: u32) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    if n == 0 {
        return "0".into();
    }
    let mut out = Vec::new();
    while n > 0 {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
    }
    out.reverse();
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected values computed with the SDKs' own `_sanitize_path` (claude-agent-sdk 0.2.189,
    // qoder-agent-sdk 1.0.16).
    #[test]
    fn short_paths_match_the_reference() {
        for d in [Dialect::Claude, Dialect::Qoder] {
            assert_eq!(sanitize_path("/home/u/my.repo", d), "-home-u-my-repo");
            assert_eq!(sanitize_path("/tmp/a b_c-d/é", d), "-tmp-a-b-c-d--");
        }
    }

    #[test]
    fn long_paths_are_truncated_and_hashed_per_dialect() {
        let x = format!("/{}", "x".repeat(250));
        let prefix = format!("-{}", "x".repeat(199));
        assert_eq!(
            sanitize_path(&x, Dialect::Claude),
            format!("{prefix}-v734pd")
        );
        assert_eq!(
            sanitize_path(&x, Dialect::Qoder),
            format!("{prefix}-1bdfuy")
        );

        let e = format!("/work/{}", "dir-é/".repeat(40));
        assert!(sanitize_path(&e, Dialect::Claude).ends_with("---di-vnb6u7"));
        assert!(sanitize_path(&e, Dialect::Qoder).ends_with("---di-zalmvw"));

        let ab = format!("/{}/zzz", "ab".repeat(120));
        assert!(sanitize_path(&ab, Dialect::Claude).ends_with("a-ww5j2q"));
        assert!(sanitize_path(&ab, Dialect::Qoder).ends_with("a-8j1l4v"));
        assert_eq!(sanitize_path(&ab, Dialect::Claude).len(), 207);
    }

    #[test]
    fn non_bmp_characters_count_as_two_units_like_javascript() {
        assert_eq!(sanitize_path("/a😀b", Dialect::Claude), "-a--b");
    }

    #[test]
    fn project_key_resolves_symlinks() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real");
        std::fs::create_dir(&real).unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        assert_eq!(
            project_key(&link, Dialect::Claude),
            project_key(&real, Dialect::Claude)
        );
        assert!(project_key(&link, Dialect::Claude).ends_with("-real"));
    }
}
