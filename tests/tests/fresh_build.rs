//! What a fresh machine with only Rust and a C compiler builds: a plain
//! `cargo build --release` at the workspace root reaches no crate whose build
//! script needs a system package (mpi-sys and bindgen/clang-sys need OpenMPI
//! and libclang, hdf5-metno-sys needs HDF5), and libop2_mpi builds without
//! HDF5 when asked to (`--no-default-features`, what the CMake package does
//! when no HDF5 is found).

use op2_tests::root;
use std::process::Command;

/// Every package (name only) `cargo tree` reaches from `args`, normal and
/// build dependencies, for the host.
fn packages(args: &[&str]) -> Vec<String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .current_dir(root())
        .args([
            "tree",
            "--offline",
            "-e",
            "normal,build",
            "--prefix",
            "none",
        ])
        .args(args)
        .output()
        .expect("run cargo tree");
    assert!(
        out.status.success(),
        "cargo tree {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

const NEEDS_SYSTEM: [&str; 4] = ["mpi-sys", "clang-sys", "hdf5-metno-sys", "bindgen"];

#[test]
fn default_members_need_no_system_package() {
    let pkgs = packages(&[]);
    for lib in ["libop2-seq", "libop2-openmp", "libop2-cuda"] {
        assert!(pkgs.iter().any(|p| p == lib), "{lib} not a default member");
    }
    for bad in NEEDS_SYSTEM {
        assert!(
            !pkgs.iter().any(|p| p == bad),
            "a plain `cargo build` reaches {bad}, whose build script needs a system package"
        );
    }
}

#[test]
fn whole_workspace_reaches_mpi_and_hdf5() {
    // the check above would pass vacuously if cargo tree never showed -sys crates
    let pkgs = packages(&["--workspace"]);
    for sys in ["mpi-sys", "hdf5-metno-sys"] {
        assert!(
            pkgs.iter().any(|p| p == sys),
            "{sys} not in the workspace tree"
        );
    }
}

#[test]
fn mpi_libraries_build_without_hdf5_on_request() {
    for lib in ["libop2-mpi", "libop2-mpi-cuda"] {
        let with = packages(&["-p", lib]);
        assert!(
            with.iter().any(|p| p == "hdf5-metno-sys"),
            "{lib} lost HDF5"
        );
        let without = packages(&["-p", lib, "--no-default-features"]);
        assert!(without.iter().any(|p| p == "mpi-sys"), "{lib} lost MPI");
        assert!(
            !without.iter().any(|p| p == "hdf5-metno-sys"),
            "{lib} --no-default-features still needs HDF5"
        );
    }
}
