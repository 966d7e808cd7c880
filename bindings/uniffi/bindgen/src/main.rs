//! `uniffi-bindgen generate --library <libdcl_uniffi.so> --language kotlin|swift --out-dir <dir>`
//! (run from the workspace root, so `cargo metadata` finds `bindings/uniffi/uniffi.toml`).

fn main() {
    uniffi::uniffi_bindgen_main()
}
