use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::Path;

use super::*;

fn root() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    (dir, root)
}

fn ctx(_root: &Path) -> CheckedPaths {
    CheckedPaths::default()
}

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn a_file_is_written_atomically_keeping_its_mode() {
    let (_d, root) = root();
    let path = root.join("run.sh");
    fs::write(&path, "old").unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o750)).unwrap();
    let t = target(&ctx(&root), &path, false).unwrap();
    let existing = t.open_existing().unwrap().unwrap();
    let mode = mode_of(&existing.metadata().unwrap());
    t.write_atomic(b"new", mode).unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), "new");
    assert_eq!(
        fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o750
    );
    assert_eq!(entries(&root), vec!["run.sh"], "temp file left behind");
}

#[test]
fn missing_directories_are_created_when_asked() {
    let (_d, root) = root();
    let path = root.join("a/b/c.txt");
    assert!(
        target(&ctx(&root), &path, false)
            .unwrap_err()
            .is_not_found()
    );
    let t = target(&ctx(&root), &path, true).unwrap();
    assert!(t.open_existing().unwrap().is_none());
    t.write_atomic(b"x", None).unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), "x");
}

/// The attack on each step: a symlink where the checked path had a file or directory.
#[test]
fn a_symlink_anywhere_in_the_checked_path_is_refused() {
    let (_d, root) = root();
    let (_o, outside) = super::tests::root();
    fs::write(outside.join("secret"), "s").unwrap();
    fs::create_dir(root.join("dir")).unwrap();
    let c = ctx(&root);
    // Checked while both were real.
    let file = root.join("dir/f");
    fs::write(&file, "f").unwrap();
    assert_eq!(checked_path(&c, &file), file);
    // The file becomes a link.
    fs::remove_file(&file).unwrap();
    symlink(outside.join("secret"), &file).unwrap();
    let t = target(&c, &file, false).unwrap();
    assert!(matches!(t.open_existing(), Err(FsError::Changed { .. })));
    // The directory becomes a link.
    fs::remove_file(&file).unwrap();
    fs::remove_dir(root.join("dir")).unwrap();
    symlink(&outside, root.join("dir")).unwrap();
    for create in [false, true] {
        let e = target(&c, &file, create).err().unwrap();
        assert!(matches!(e, FsError::Changed { .. }), "{e}");
        let e = unix::walk(&root.join("dir"), create).unwrap_err();
        assert!(matches!(e, FsError::Changed { .. }), "walk: {e}");
    }
    assert!(e_message_names_the_change(&file));
    assert_eq!(entries(&outside), vec!["secret"]);
}

fn e_message_names_the_change(path: &Path) -> bool {
    FsError::Changed {
        path: path.to_path_buf(),
    }
    .to_string()
    .contains("changed during the call")
}

/// The positive twin: a link the check resolved is followed as resolved.
#[test]
fn a_link_resolved_by_the_check_is_used_as_resolved() {
    let (_d, root) = root();
    fs::create_dir(root.join("real")).unwrap();
    fs::write(root.join("real/f"), "old").unwrap();
    symlink(root.join("real"), root.join("link")).unwrap();
    let c = ctx(&root);
    let t = target(&c, &root.join("link/f"), false).unwrap();
    assert_eq!(t.resolved, root.join("real/f"));
    t.write_atomic(b"new", None).unwrap();
    assert_eq!(fs::read_to_string(root.join("real/f")).unwrap(), "new");
    assert!(root.join("link").is_symlink());
}

#[test]
fn the_walk_and_openat2_agree() {
    let (_d, root) = root();
    fs::create_dir_all(root.join("x/y")).unwrap();
    fs::write(root.join("x/y/f"), "v").unwrap();
    let dir = unix::walk(&root.join("x/y"), false).unwrap();
    let mut s = String::new();
    use std::io::Read as _;
    dir.open_read(OsStr::new("f"))
        .unwrap()
        .read_to_string(&mut s)
        .unwrap();
    assert_eq!(s, "v");
    let via_walk = unix::walk(&root.join("x/new/deeper"), true).unwrap();
    assert!(root.join("x/new/deeper").is_dir());
    drop(via_walk);
    let top = open_dir(&root).unwrap();
    let mut s = String::new();
    top.open_read_beneath(Path::new("x/y/f"))
        .unwrap()
        .read_to_string(&mut s)
        .unwrap();
    assert_eq!(s, "v");
    symlink(root.join("x/y"), root.join("ly")).unwrap();
    assert!(matches!(
        top.open_read_beneath(Path::new("ly/f")),
        Err(FsError::Changed { .. })
    ));
    assert!(top.open_read_beneath(Path::new("../etc/passwd")).is_err());
}

#[test]
fn a_long_name_gets_a_short_temp_name() {
    let (_d, root) = root();
    let name = "n".repeat(250);
    let path = root.join(&name);
    let t = target(&ctx(&root), &path, false).unwrap();
    t.write_atomic(b"one", None).unwrap();
    t.write_atomic(b"two", None).unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), "two");
    assert_eq!(entries(&root), vec![name]);
    assert!(temp_name().len() <= 18);
}

#[test]
fn a_failed_write_leaves_no_temp_file() {
    let (_d, root) = root();
    fs::create_dir(root.join("d")).unwrap();
    // Renaming a file over a directory fails after the temp file was written.
    let t = target(&ctx(&root), &root.join("d"), false).unwrap();
    assert!(t.write_atomic(b"x", None).is_err());
    assert_eq!(entries(&root), vec!["d"]);
}

/// The fallback for kernels without openat2 (ENOSYS) refuses the same symlinks.
#[cfg(target_os = "linux")]
#[test]
fn without_openat2_the_walk_refuses_the_same_links() {
    let (_d, root) = root();
    let (_o, outside) = super::tests::root();
    fs::create_dir(root.join("d")).unwrap();
    fs::write(root.join("d/f"), "in").unwrap();
    fs::write(outside.join("f"), "out").unwrap();
    symlink(&outside, root.join("l")).unwrap();
    unix::linux::pretend_missing(true);
    let top = open_dir(&root);
    let beneath_ok = top
        .as_ref()
        .map(|t| t.open_read_beneath(Path::new("d/f")).is_ok());
    let beneath_link = top.as_ref().map(|t| {
        matches!(
            t.open_read_beneath(Path::new("l/f")),
            Err(FsError::Changed { .. })
        )
    });
    let dir_link = matches!(open_dir(&root.join("l")), Err(FsError::Changed { .. }));
    let created = target(&ctx(&root), &root.join("new/x"), true).is_ok();
    unix::linux::pretend_missing(false);
    assert_eq!(beneath_ok.ok(), Some(true));
    assert_eq!(beneath_link.ok(), Some(true));
    assert!(dir_link);
    assert!(created && root.join("new").is_dir());
}
