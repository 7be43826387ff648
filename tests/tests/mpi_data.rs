//! OP2's helpers for library-held data under MPI (libop2_mpi.a, 2 and 3
//! ranks): tests/c/mpi_data.cpp checks op_get_g_index, op_force_part,
//! op_mpi_get_data / op_fetch_data_file_char (the declared blocks in the
//! original order), op_mpi_reset_halos (NaN import halos, refreshed by the
//! next exchange), op_disable_mpi_reductions (rank-local sums),
//! op_get/put_dat_mpi, op_halo_create and an overlay after partitioning,
//! against values computed from the global numbering.

mod common;

use common::assert_all_pass;
use op2_tests::{lib_dir, out_dir, root, Run};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

fn program() -> PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let archive = lib_dir().join("libop2_mpi.a");
        assert!(archive.exists(), "{} is missing", archive.display());
        let exe = out_dir().join("mpi_data-op2_mpi");
        let mut cmd = Command::new("mpicxx");
        cmd.args([
            "-DOMPI_SKIP_MPICXX",
            "-DMPICH_SKIP_MPICXX",
            "-std=c++17",
            "-pedantic",
            "-O2",
            "-Wall",
            "-Wextra",
        ])
        .arg(format!("-I{}", root().join("include").display()))
        .arg(root().join("tests/c/mpi_data.cpp"))
        .arg(&archive)
        .args(["-lpthread", "-ldl", "-lm", "-o"])
        .arg(&exe);
        let out = cmd.output().expect("run mpicxx");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "mpicxx failed:\n{cmd:?}\n{stderr}");
        assert!(!stderr.contains("warning"), "warnings:\n{stderr}");
        exe
    })
    .clone()
}

fn mpirun(exe: &Path, np: usize, args: &[&str], tag: &str) -> Run {
    let dir = out_dir().join("runs").join(format!("mpi_data-{tag}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let out = Command::new("timeout")
        .args(["-k", "5", "120", "mpirun", "--allow-run-as-root"])
        .args(["--oversubscribe", "--bind-to", "none"])
        .args(["-np", &np.to_string()])
        .arg(exe)
        .args(args)
        .current_dir(&dir)
        .env("OMPI_MCA_rmaps_base_oversubscribe", "1")
        .output()
        .expect("run timeout/mpirun");
    Run {
        status: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

const COMMON: &[&str] = &[
    "sizes",
    "g_index",
    "reset_halos_nan",
    "halo_refreshed",
    "mpi_get_data",
    "disable_mpi_reductions",
    "get_put_dat_mpi",
    "overlay_after_partition",
];

#[test]
fn data_helpers_after_op_partition() {
    let mut expected = COMMON.to_vec();
    expected.push("force_part");
    for np in [2, 3] {
        let r = mpirun(&program(), np, &[], &format!("part{np}"));
        assert_all_pass(&r, &expected);
    }
}

#[test]
fn halo_create_partitions_by_blocks() {
    let mut expected = COMMON.to_vec();
    expected.push("halo_create");
    for np in [2, 3] {
        let r = mpirun(&program(), np, &["halo-create"], &format!("halo{np}"));
        assert_all_pass(&r, &expected);
    }
}
