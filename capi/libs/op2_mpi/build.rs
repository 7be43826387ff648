//! The shared library's SONAME (the C ABI crate's build script names only
//! its own artifacts).
fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libop2_mpi.so");
    println!("cargo:rerun-if-changed=build.rs");
}
