//! The committed header is what cbindgen makes of the ABI now.

#![allow(clippy::unwrap_used, clippy::expect_used)]

#[test]
fn committed_header_is_current() {
    let dir = env!("CARGO_MANIFEST_DIR");
    let config = cbindgen::Config::from_file(format!("{dir}/cbindgen.toml")).unwrap();
    let bindings = cbindgen::Builder::new()
        .with_crate(dir)
        .with_config(config)
        .generate()
        .expect("cbindgen reads src/lib.rs");
    let mut generated = Vec::new();
    bindings.write(&mut generated);
    let generated = String::from_utf8(generated).unwrap();
    let path = std::path::Path::new(dir).join("include/dcl.h");
    if std::env::var_os("DCL_BLESS").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{} is stale: DCL_BLESS=1 cargo test -p dcl-c --test header",
        path.display()
    );
    for f in [
        "dcl_open",
        "dcl_next_events",
        "dcl_respond",
        "dcl_close",
        "dcl_string_free",
    ] {
        assert!(generated.contains(f), "{f} missing from the header");
    }
}
