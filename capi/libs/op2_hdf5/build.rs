//! Gives the shared library its SONAME; it leaves the OP2 API undefined
//! (the OP2 library of the link line defines it).
fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libop2_hdf5.so");
    println!("cargo:rerun-if-changed=build.rs");
}
