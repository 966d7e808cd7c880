//! Every name a path goes by, for the one path decision: the path as given, each symlink
//! hop and the real path. Deny and ask rules and protected names bind when any alias
//! matches; allow rules and the "inside the working dirs" test look at the real path only.
//!
//! Resolution walks the path component by component as the kernel does: `..` after a
//! symlink climbs from the link's target, link chains are followed (at most
//! [`MAX_LINK_HOPS`], the kernel's limit), and a missing component ends the walk, the rest
//! appended as written (a file not created yet resolves through its longest existing
//! prefix). A path without symlinks costs one `lstat` per component. Paths stay bytes
//! (`OsStr`) throughout.

use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

/// Symlinks followed in one resolution before it stops, as the kernel's `ELOOP` (40).
pub const MAX_LINK_HOPS: usize = 40;

/// The names of one path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Aliases {
    /// The path as given, absolute, `.` and `..` removed lexically.
    pub given: PathBuf,
    /// After each symlink met on the way: the path with that link replaced by its target
    /// (lexically normalised), in the order they were met.
    pub hops: Vec<PathBuf>,
    /// Where the kernel lands: every existing component resolved, the missing rest
    /// appended.
    pub real: PathBuf,
}

impl Aliases {
    /// The aliases of `path`, taken against `cwd` when relative.
    pub fn resolve(path: &Path, cwd: &Path) -> Aliases {
        let abs = if path.is_absolute() {
            path.to_path_buf()
        } else {
            cwd.join(path)
        };
        let (hops, real) = walk(&abs);
        Aliases {
            given: normalize_lexically(&abs),
            hops,
            real,
        }
    }

    /// Every alias once: given, hops, real.
    pub fn all(&self) -> impl Iterator<Item = &Path> {
        let mut seen: Vec<&Path> = Vec::with_capacity(self.hops.len() + 2);
        std::iter::once(self.given.as_path())
            .chain(self.hops.iter().map(PathBuf::as_path))
            .chain(std::iter::once(self.real.as_path()))
            .filter(move |p| {
                if seen.contains(p) {
                    false
                } else {
                    seen.push(p);
                    true
                }
            })
    }
}

/// Removes `.` and `..` components without touching the filesystem (`/..` is `/`).
pub fn normalize_lexically(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for comp in path.components() {
        match comp {
            Component::CurDir => {}
            Component::ParentDir => {
                // Never climb above the root; a relative path keeps its leading `..`.
                if !out.pop() && !out.has_root() {
                    out.push(comp.as_os_str());
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The real location of `path` (absolute): see [`Aliases::real`].
pub fn resolve_real(path: &Path) -> PathBuf {
    walk(path).1
}

/// The symlink hops and the real path of an absolute path.
fn walk(abs: &Path) -> (Vec<PathBuf>, PathBuf) {
    // Components still to resolve, the next one last.
    let mut todo: Vec<OsString> = Vec::new();
    push_components(&mut todo, abs);
    let mut cur = root_of(abs);
    let mut hops = Vec::new();
    let mut links = 0usize;
    // Once a component is missing (or a link cannot be followed) the rest is lexical.
    let mut on_disk = true;
    while let Some(name) = todo.pop() {
        match name.as_encoded_bytes() {
            b"" | b"." => continue,
            // `cur` is real while `on_disk`, so its parent is where the kernel's `..` goes.
            b".." => {
                cur.pop();
                continue;
            }
            _ => {}
        }
        let next = cur.join(&name);
        if !on_disk {
            cur = next;
            continue;
        }
        match std::fs::symlink_metadata(&next) {
            Ok(m) if m.file_type().is_symlink() => {
                links += 1;
                let target = match std::fs::read_link(&next) {
                    Ok(t) if links <= MAX_LINK_HOPS => t,
                    // ELOOP or an unreadable link: the kernel stops here too.
                    _ => {
                        on_disk = false;
                        cur = next;
                        continue;
                    }
                };
                if target.is_absolute() {
                    cur = root_of(&target);
                }
                push_components(&mut todo, &target);
                let mut hop = cur.clone();
                hop.extend(todo.iter().rev());
                hops.push(normalize_lexically(&hop));
            }
            Ok(_) => cur = next,
            Err(_) => {
                on_disk = false;
                cur = next;
            }
        }
    }
    (hops, cur)
}

/// Where an absolute path starts: `/`, or on Windows its drive or share and root
/// (`C:\`, `\\server\share\`), which the walk must keep rather than climb to `/`.
fn root_of(path: &Path) -> PathBuf {
    let root: PathBuf = path
        .components()
        .take_while(|c| matches!(c, Component::Prefix(_) | Component::RootDir))
        .collect();
    if root.as_os_str().is_empty() {
        PathBuf::from("/")
    } else {
        root
    }
}

/// Pushes `path`'s components so that its first is popped first.
fn push_components(todo: &mut Vec<OsString>, path: &Path) {
    let at = todo.len();
    for comp in path.components() {
        match comp {
            Component::RootDir | Component::Prefix(_) => {}
            other => todo.push(other.as_os_str().to_os_string()),
        }
    }
    todo[at..].reverse();
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn root() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        (dir, root)
    }

    #[test]
    fn dotdot_is_resolved_before_containment() {
        let (_d, root) = root();
        let sneaky = root.join("sub/../../outside.txt");
        let real = resolve_real(&sneaky);
        assert!(
            !real.starts_with(&root),
            "{real:?} must be outside {root:?}"
        );
    }

    #[test]
    fn symlink_to_outside_is_outside() {
        let (_d, root) = root();
        let outside = tempfile::tempdir().unwrap();
        symlink(outside.path(), root.join("link")).unwrap();
        let real = resolve_real(&root.join("link/new-file.txt"));
        assert!(!real.starts_with(&root));
        assert!(real.starts_with(outside.path().canonicalize().unwrap()));
    }

    #[test]
    fn nonexistent_inside_stays_inside() {
        let (_d, root) = root();
        let real = resolve_real(&root.join("a/b/./c.txt"));
        assert_eq!(real, root.join("a/b/c.txt"));
    }

    #[test]
    fn every_hop_of_a_chain_is_an_alias() {
        let (_d, root) = root();
        std::fs::create_dir_all(root.join("config")).unwrap();
        std::fs::write(root.join("config/dev.env"), "x").unwrap();
        symlink("config/dev.env", root.join("mid")).unwrap();
        symlink("mid", root.join(".env")).unwrap();
        let a = Aliases::resolve(Path::new(".env"), &root);
        assert_eq!(a.given, root.join(".env"));
        assert_eq!(a.hops, vec![root.join("mid"), root.join("config/dev.env")]);
        assert_eq!(a.real, root.join("config/dev.env"));
        assert_eq!(a.all().count(), 3);
        // The twin: a plain file has one name.
        let plain = Aliases::resolve(Path::new("config/dev.env"), &root);
        assert!(plain.hops.is_empty());
        assert_eq!(plain.all().count(), 1);
    }

    #[test]
    fn dotdot_after_a_link_climbs_from_the_target_like_the_kernel() {
        let (_d, root) = root();
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::create_dir_all(root.join("x")).unwrap();
        symlink(root.join("a/b"), root.join("x/l")).unwrap();
        // Lexically `x/l/../f` is `x/f`; the kernel reads `a/f`.
        let a = Aliases::resolve(Path::new("x/l/../f"), &root);
        assert_eq!(a.given, root.join("x/f"));
        assert_eq!(a.real, root.join("a/f"));
        assert_eq!(
            std::fs::write(root.join("x/l/../f"), "k").ok(),
            Some(()),
            "the kernel agrees"
        );
        assert!(root.join("a/f").exists());
    }

    #[test]
    fn a_missing_file_resolves_through_its_existing_prefix() {
        let (_d, root) = root();
        let outside = tempfile::tempdir().unwrap();
        symlink(outside.path(), root.join("cfg")).unwrap();
        let a = Aliases::resolve(Path::new("cfg/new/deep.txt"), &root);
        let out = outside.path().canonicalize().unwrap();
        assert_eq!(a.real, out.join("new/deep.txt"));
        assert!(a.all().any(|p| p == root.join("cfg/new/deep.txt")));
    }

    #[test]
    fn a_link_loop_stops_after_the_kernels_limit() {
        let (_d, root) = root();
        symlink("b", root.join("a")).unwrap();
        symlink("a", root.join("b")).unwrap();
        let a = Aliases::resolve(Path::new("a/x"), &root);
        assert!(a.hops.len() <= MAX_LINK_HOPS);
        assert!(a.real.starts_with(&root));
    }

    #[test]
    fn non_utf8_names_stay_bytes() {
        use std::os::unix::ffi::OsStrExt as _;
        let (_d, root) = root();
        let odd = root.join(std::ffi::OsStr::from_bytes(b"d\xffir"));
        std::fs::create_dir_all(&odd).unwrap();
        symlink(&odd, root.join("l")).unwrap();
        let a = Aliases::resolve(Path::new("l/f"), &root);
        assert_eq!(a.real, odd.join("f"));
    }

    #[cfg(windows)]
    #[test]
    fn a_drive_or_share_is_kept_as_the_root() {
        assert_eq!(root_of(Path::new(r"D:\x\y")), PathBuf::from(r"D:\"));
        assert_eq!(
            root_of(Path::new(r"\\srv\share\x")),
            PathBuf::from(r"\\srv\share\")
        );
    }
}
