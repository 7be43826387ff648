//! include/op2_rs_generated.h must be exactly what cbindgen makes of capi/src
//! (with the functions of its `exports!` tables, expanded here into plain
//! declarations, since cbindgen does not expand macros) and of
//! core/src/invoke.rs (the argument views the C++ trampoline reads).

use op2_tests::{out_dir, root};

/// The `exports!` tables of capi/src as plain Rust declarations: each entry
/// `name(params) -> ret = "call" => expr;` with its docs and attributes
/// becomes `#[no_mangle] pub unsafe extern "C" fn name(params) -> ret {}`.
fn expanded_exports() -> String {
    let mut out = String::from("use crate::ffi::*;\n");
    let mut files: Vec<_> = std::fs::read_dir(root().join("capi/src"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect();
    files.sort();
    for p in files {
        let text = std::fs::read_to_string(&p).unwrap();
        for line in op2_tests::export_table_lines(&text) {
            match line {
                op2_tests::ExportLine::Meta(t) => {
                    out.push_str(t);
                    out.push('\n');
                }
                op2_tests::ExportLine::Entry(t) => {
                    let sig = t.split(" = \"").next().unwrap_or(t);
                    out.push_str(&format!(
                        "#[no_mangle]\npub unsafe extern \"C\" fn {sig} {{}}\n"
                    ));
                }
            }
        }
    }
    out
}

#[test]
fn exports_tables_are_found() {
    let e = expanded_exports();
    for name in [
        "op_decl_map_core",
        "op_mpi_halo_exchanges",
        "reallocReductArrays",
    ] {
        assert!(e.contains(&format!("fn {name}(")), "{name} in\n{e}");
    }
}

#[test]
fn generated_header_is_fresh() {
    let r = root();
    let stubs = out_dir().join("exports_expanded.rs");
    std::fs::create_dir_all(out_dir()).unwrap();
    std::fs::write(&stubs, expanded_exports()).unwrap();
    let cfg = cbindgen::Config::from_file(r.join("capi/cbindgen.toml")).expect("cbindgen.toml");
    let bindings = cbindgen::Builder::new()
        .with_config(cfg)
        .with_src(r.join("capi/src/lib.rs"))
        .with_src(&stubs)
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
