//! include/op2_rs_generated.h must be exactly what cbindgen makes of capi/src
//! and of core/src/invoke.rs (the argument views the C++ trampoline reads).

use op2_tests::root;

#[test]
fn generated_header_is_fresh() {
    let r = root();
    let cfg = cbindgen::Config::from_file(r.join("capi/cbindgen.toml")).expect("cbindgen.toml");
    let bindings = cbindgen::Builder::new()
        .with_config(cfg)
        .with_src(r.join("capi/src/lib.rs"))
        .with_src(r.join("core/src/invoke.rs"))
        .generate()
        .expect("cbindgen parses capi/src");
    let mut fresh = Vec::new();
    bindings.write(&mut fresh);
    let path = r.join("include/op2_rs_generated.h");
    if std::env::var_os("OP2_BLESS").is_some() {
        std::fs::write(&path, &fresh).unwrap();
    }
    let committed = std::fs::read(&path).unwrap_or_default();
    assert!(
        committed == fresh,
        "include/op2_rs_generated.h is stale: run `OP2_BLESS=1 cargo test -p op2-tests --test headers` and commit it"
    );
}
