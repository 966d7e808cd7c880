//! A path rule's content (`Read(./secret/**)`, `Edit(~/.ssh/**)`, `Edit(/etc/*.conf)`)
//! split into a literal anchor and the glob below it, both matched on aliases.
//!
//! The anchor — the cwd, HOME or `/` the rule starts from and the rule's leading
//! components without glob characters — never enters a glob: it is resolved like any
//! path ([`Aliases`]) and compared component-wise as bytes, so a cwd named `proj[1]` or
//! `proj{a}` or one that is not UTF-8 means itself. Only the rest of the rule is a glob,
//! matched against what follows the anchor.

use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobMatcher};

use super::paths::Aliases;

/// Characters that start a glob in a rule's content.
const GLOB_META: &[char] = &['*', '?', '[', '{'];

/// Where names differ by case only on the user's screen: Windows' and macOS's default file
/// systems open `SECRET/k` for `secret/k`, so a deny or ask rule must bind it. Allow rules
/// stay exact (the stricter reading).
const FOLDS_CASE: bool = cfg!(any(windows, target_os = "macos"));

/// What follows the anchor.
#[derive(Debug, Clone)]
enum Tail {
    /// No glob: the anchor itself.
    Exact,
    /// `dir/**`-style: the anchor and everything below it.
    Below,
    /// The glob as written, and (where the file system folds case) folded for the deny side.
    Glob(GlobMatcher, Option<GlobMatcher>),
    /// A glob globset cannot read: binds everything below the anchor for deny and ask
    /// rules, nothing for allow rules.
    Unreadable,
}

/// A parsed path rule.
#[derive(Debug, Clone)]
pub(crate) struct PathPattern {
    /// Every name of the anchor (given, link hops, real).
    anchors: Vec<PathBuf>,
    /// The anchor as the rule writes it, only its base (cwd, HOME, `/`) resolved: what an
    /// allow rule grants. A rule naming a link grants nothing through it (`Edit(./cfg/**)`
    /// with `cfg -> conf` does not allow `conf/`), as the reference asks there.
    written: PathBuf,
    tail: Tail,
}

impl PathPattern {
    /// `content` as the rule wrote it; relative rules start at `cwd`, `~/` at `home`,
    /// `/x` and `//x` (the reference's spelling) at the root.
    pub(crate) fn parse(content: &str, cwd: &Path, home: Option<&Path>) -> PathPattern {
        // Windows rules may be written with backslashes; globs there never escape with one.
        let content: std::borrow::Cow<'_, str> = if cfg!(windows) {
            content.replace('\\', "/").into()
        } else {
            content.into()
        };
        let content = content.as_ref();
        let (base, rest): (PathBuf, &str) = match (content, home) {
            ("~", Some(h)) => (h.to_path_buf(), ""),
            (c, Some(h)) if c.starts_with("~/") => (h.to_path_buf(), &c[2..]),
            (c, _) if cfg!(windows) && windows_drive(c).is_some() => {
                let (drive, rest) = windows_drive(c).unwrap_or(('C', c));
                (PathBuf::from(format!("{drive}:\\")), rest)
            }
            (c, _) if c.starts_with('/') => (PathBuf::from("/"), c.trim_start_matches('/')),
            (c, _) => (cwd.to_path_buf(), c),
        };
        let mut written = Aliases::resolve(&base, cwd).real;
        let mut anchor = base;
        let mut parts = rest.split('/').peekable();
        while let Some(part) = parts.next_if(|p| !p.contains(GLOB_META)) {
            if !part.is_empty() {
                anchor.push(part);
                written.push(part);
            }
        }
        let written = super::paths::normalize_lexically(&written);
        let glob: Vec<&str> = parts.collect();
        let glob = glob.join("/");
        let tail = if glob.is_empty() {
            Tail::Exact
        } else if glob == "**" || glob == "**/*" {
            Tail::Below
        } else {
            let build = |fold: bool| {
                GlobBuilder::new(&glob)
                    .literal_separator(true)
                    .case_insensitive(fold)
                    .build()
                    .map(|g| g.compile_matcher())
            };
            match build(false) {
                Ok(exact) => Tail::Glob(exact, build(true).ok().filter(|_| FOLDS_CASE)),
                Err(_) => Tail::Unreadable,
            }
        };
        PathPattern {
            anchors: Aliases::resolve(&anchor, cwd)
                .all()
                .map(Path::to_path_buf)
                .collect(),
            written,
            tail,
        }
    }

    /// Whether this one name of a path is what the pattern names, from one of `anchors`.
    fn names_from<'a>(
        &self,
        mut anchors: impl Iterator<Item = &'a PathBuf>,
        p: &Path,
        deny: bool,
    ) -> bool {
        let fold = deny && FOLDS_CASE;
        anchors.any(|anchor| {
            let rel = if fold {
                strip_prefix_folded(p, anchor)
            } else {
                p.strip_prefix(anchor).ok().map(Path::to_path_buf)
            };
            let Some(rel) = rel else {
                return false;
            };
            match &self.tail {
                Tail::Exact => rel.as_os_str().is_empty(),
                Tail::Below => true,
                Tail::Glob(exact, folded) => {
                    let g = if fold {
                        folded.as_ref().unwrap_or(exact)
                    } else {
                        exact
                    };
                    !rel.as_os_str().is_empty() && g.is_match(&rel)
                }
                Tail::Unreadable => deny,
            }
        })
    }

    fn names(&self, p: &Path, deny: bool) -> bool {
        self.names_from(self.anchors.iter(), p, deny)
    }

    /// Deny and ask side: any name of the path.
    pub(crate) fn binds_any(&self, a: &Aliases) -> bool {
        a.all().any(|p| self.names(p, true))
    }

    /// Allow side: the real path only (a link that leads elsewhere is not granted).
    pub(crate) fn grants(&self, a: &Aliases) -> bool {
        self.names_from(std::iter::once(&self.written), &a.real, false)
    }

    /// Whether the path, by any name, is a directory holding what the pattern names (a
    /// search over it reads it).
    pub(crate) fn lies_within(&self, a: &Aliases) -> bool {
        a.all()
            .any(|p| self.anchors.iter().any(|anchor| anchor.starts_with(p)))
    }

    /// The last literal component of the anchor (`secret` of `./secret/**`), for lines
    /// whose paths cannot be read.
    pub(crate) fn literal_tail(content: &str) -> Option<&str> {
        let cut = content.find(GLOB_META).unwrap_or(content.len());
        let head = &content[..cut];
        let head = if cut == content.len() {
            head
        } else {
            head.rfind('/').map_or("", |i| &head[..i])
        };
        head.trim_end_matches('/')
            .rsplit('/')
            .find(|s| !s.is_empty() && *s != "." && *s != ".." && *s != "~")
    }
}

/// A rule's drive on Windows, in the reference's POSIX spelling (`//c/Users/…`, also
/// `/c/…`) or the native one (`C:/Users/…`, backslashes already turned to `/`): the drive
/// letter, upper-cased, and the rest after its root.
fn windows_drive(content: &str) -> Option<(char, &str)> {
    let bytes = content.as_bytes();
    let (letter, rest) = match bytes {
        [b'/', b'/', l, rest @ ..] | [b'/', l, rest @ ..] if l.is_ascii_alphabetic() => (*l, rest),
        [l, b':', rest @ ..] if l.is_ascii_alphabetic() => (*l, rest),
        _ => return None,
    };
    match rest {
        [] => Some((char::from(letter.to_ascii_uppercase()), "")),
        [b'/', ..] => Some((
            char::from(letter.to_ascii_uppercase()),
            content[content.len() - rest.len()..].trim_start_matches('/'),
        )),
        _ => None,
    }
}

/// `p` below `anchor`, component names compared without ASCII case (see [`FOLDS_CASE`]).
fn strip_prefix_folded(p: &Path, anchor: &Path) -> Option<PathBuf> {
    let mut rest = p.components();
    for want in anchor.components() {
        let got = rest.next()?;
        if !got
            .as_os_str()
            .as_encoded_bytes()
            .eq_ignore_ascii_case(want.as_os_str().as_encoded_bytes())
        {
            return None;
        }
    }
    Some(rest.as_path().to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn windows_drives_in_both_spellings() {
        assert_eq!(
            windows_drive("//c/Users/me/.env"),
            Some(('C', "Users/me/.env"))
        );
        assert_eq!(windows_drive("/d/**/.env"), Some(('D', "**/.env")));
        assert_eq!(windows_drive("C:/Users/me"), Some(('C', "Users/me")));
        assert_eq!(windows_drive("//c"), Some(('C', "")));
        // Twins: a root folder with a longer name, a relative path, a glob.
        assert_eq!(windows_drive("/cfg/app.ini"), None);
        assert_eq!(windows_drive("src/a.rs"), None);
        assert_eq!(windows_drive("**/.env"), None);
    }

    #[test]
    fn folded_prefixes_ignore_ascii_case_only_by_component() {
        let p = Path::new("/Work/Proj/SECRET/k.txt");
        assert_eq!(
            strip_prefix_folded(p, Path::new("/work/proj/secret")),
            Some(PathBuf::from("k.txt"))
        );
        // Twins: a different folder, and a component that only starts the same.
        assert_eq!(strip_prefix_folded(p, Path::new("/work/proj/public")), None);
        assert_eq!(strip_prefix_folded(p, Path::new("/work/pro")), None);
    }

    fn dir() -> (tempfile::TempDir, PathBuf) {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().canonicalize().unwrap();
        (d, p)
    }

    fn at(p: &Path, cwd: &Path) -> Aliases {
        Aliases::resolve(p, cwd)
    }

    #[test]
    fn a_rule_naming_a_link_binds_its_target_and_the_link() {
        let (_d, cwd) = dir();
        std::fs::create_dir_all(cwd.join("config")).unwrap();
        std::fs::write(cwd.join("config/dev.env"), "S").unwrap();
        symlink("config/dev.env", cwd.join(".env")).unwrap();
        let rule = PathPattern::parse("./.env", &cwd, None);
        assert!(rule.binds_any(&at(Path::new(".env"), &cwd)));
        assert!(rule.binds_any(&at(Path::new("config/dev.env"), &cwd)));
        // Twin: another file in the same folder.
        std::fs::write(cwd.join("config/prod.env"), "P").unwrap();
        assert!(!rule.binds_any(&at(Path::new("config/prod.env"), &cwd)));
    }

    #[test]
    fn a_rule_under_a_linked_dir_binds_the_target_dir() {
        let (_d, cwd) = dir();
        let (_o, out) = dir();
        std::fs::write(out.join("key.txt"), "K").unwrap();
        symlink(&out, cwd.join("secret")).unwrap();
        let rule = PathPattern::parse("./secret/**", &cwd, None);
        assert!(rule.binds_any(&at(Path::new("secret/key.txt"), &cwd)));
        assert!(rule.binds_any(&at(&out.join("key.txt"), &cwd)));
        assert!(rule.lies_within(&at(&cwd, &cwd)));
        assert!(rule.lies_within(&at(&out, &cwd)));
        assert!(!rule.binds_any(&at(Path::new("src/a.rs"), &cwd)));
    }

    #[test]
    fn home_reached_through_a_link_binds_both_names() {
        let (_d, base) = dir();
        std::fs::create_dir_all(base.join("real-home/.ssh")).unwrap();
        symlink(base.join("real-home"), base.join("home")).unwrap();
        let home = base.join("home");
        let rule = PathPattern::parse("~/.ssh/**", &base, Some(&home));
        assert!(rule.binds_any(&at(&base.join("real-home/.ssh/id_rsa"), &base)));
        assert!(rule.binds_any(&at(&home.join(".ssh/id_rsa"), &base)));
        assert!(!rule.binds_any(&at(&base.join("real-home/notes"), &base)));
    }

    #[test]
    fn allow_grants_only_the_real_path() {
        let (_d, cwd) = dir();
        let (_o, out) = dir();
        std::fs::create_dir_all(cwd.join("src")).unwrap();
        symlink(&out, cwd.join("src/evil")).unwrap();
        let rule = PathPattern::parse("src/**", &cwd, None);
        assert!(!rule.grants(&at(Path::new("src/evil/passwd"), &cwd)));
        assert!(rule.binds_any(&at(Path::new("src/evil/passwd"), &cwd)));
        // Twin: a link that stays inside `src` is granted.
        std::fs::create_dir_all(cwd.join("src/real")).unwrap();
        symlink("real", cwd.join("src/inner")).unwrap();
        assert!(rule.grants(&at(Path::new("src/inner/a.rs"), &cwd)));
    }

    #[test]
    fn an_allow_rule_naming_a_link_grants_nothing_through_it() {
        let (_d, cwd) = dir();
        std::fs::create_dir_all(cwd.join("conf")).unwrap();
        symlink("conf", cwd.join("cfg")).unwrap();
        let rule = PathPattern::parse("cfg/**", &cwd, None);
        assert!(!rule.grants(&at(Path::new("cfg/app.ini"), &cwd)));
        // The deny side still binds both names.
        assert!(rule.binds_any(&at(Path::new("cfg/app.ini"), &cwd)));
        assert!(rule.binds_any(&at(Path::new("conf/app.ini"), &cwd)));
        // Twin: the rule naming the real folder grants it, by either name.
        let real = PathPattern::parse("conf/**", &cwd, None);
        assert!(real.grants(&at(Path::new("conf/app.ini"), &cwd)));
        assert!(real.grants(&at(Path::new("cfg/app.ini"), &cwd)));
    }

    #[test]
    fn glob_characters_in_the_cwd_are_literal() {
        for name in ["proj[1]", "proj{a}", "p*q", "a?b"] {
            let (_d, base) = dir();
            let cwd = base.join(name);
            std::fs::create_dir_all(cwd.join("secret")).unwrap();
            // A sibling the glob reading of the cwd would take for it.
            let sibling = base.join("proj1");
            std::fs::create_dir_all(sibling.join("secret")).unwrap();
            let rule = PathPattern::parse("./secret/**", &cwd, None);
            assert!(
                rule.binds_any(&at(Path::new("secret/k"), &cwd)),
                "{name}: leak"
            );
            assert!(
                !rule.binds_any(&at(&sibling.join("secret/k"), &cwd)),
                "{name}: over-match"
            );
            let glob = PathPattern::parse("*.env", &cwd, None);
            assert!(glob.binds_any(&at(Path::new("x.env"), &cwd)), "{name}");
            assert!(!glob.binds_any(&at(Path::new("sub/x.env"), &cwd)), "{name}");
        }
    }

    #[test]
    fn a_non_utf8_cwd_still_anchors_relative_rules() {
        use std::os::unix::ffi::OsStrExt as _;
        let (_d, base) = dir();
        let cwd = base.join(std::ffi::OsStr::from_bytes(b"pro\xffj"));
        std::fs::create_dir_all(cwd.join("secret")).unwrap();
        let rule = PathPattern::parse("./secret/*.txt", &cwd, None);
        assert!(rule.binds_any(&at(Path::new("secret/k.txt"), &cwd)));
        assert!(rule.grants(&at(Path::new("secret/k.txt"), &cwd)));
        assert!(!rule.binds_any(&at(Path::new("secret/k.md"), &cwd)));
    }

    #[test]
    fn literal_tails() {
        assert_eq!(PathPattern::literal_tail("./secret/**"), Some("secret"));
        assert_eq!(PathPattern::literal_tail("~/.ssh/**"), Some(".ssh"));
        assert_eq!(PathPattern::literal_tail("./.env"), Some(".env"));
        assert_eq!(PathPattern::literal_tail("**/*.pem"), None);
    }
}
