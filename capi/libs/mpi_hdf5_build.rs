//! The build script of the MPI library crates (`libop2-mpi`,
//! `libop2-mpi-cuda`, `libop2-mpi-opencl`): the shared library's SONAME,
//! named after the package (the C ABI crate's build script names only its
//! own artifacts).
//!
//! The shared library binds the HDF5 it links at build time, and HDF5 under
//! MPI needs the parallel flavour: its directory is searched first (the
//! workspace's HDF5_DIR, in .cargo/config.toml, is the serial flavour that
//! libop2_hdf5 needs). HDF5_PARALLEL_DIR overrides the Debian default.
fn main() {
    let dir = std::env::var("HDF5_PARALLEL_DIR")
        .unwrap_or_else(|_| "/usr/lib/x86_64-linux-gnu/hdf5/openmpi".to_string());
    if std::path::Path::new(&dir).join("libhdf5.so").exists() {
        println!("cargo:rustc-link-search=native={dir}");
    }
    println!("cargo:rerun-if-env-changed=HDF5_PARALLEL_DIR");
    let lib = std::env::var("CARGO_PKG_NAME")
        .expect("cargo sets CARGO_PKG_NAME")
        .replace('-', "_");
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,{lib}.so");
    println!("cargo:rerun-if-changed=../mpi_hdf5_build.rs");
}
