//! Test meshes written through op2-hdf5-io (OP2's layout) and a runner for
//! the built `op2rs`.
#![allow(dead_code)]

use op2_hdf5_io::{Access, ElemType, H5File, MapData, Mode};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// Held while a mesh is written and while `op2rs` is started: a child
/// started while another test has an HDF5 file open for writing would
/// inherit that descriptor, and HDF5's file lock with it.
static FILES: Mutex<()> = Mutex::new(());

fn files() -> std::sync::MutexGuard<'static, ()> {
    FILES.lock().unwrap_or_else(|e| e.into_inner())
}

/// Cells in x and y of the structured quad mesh.
pub const NX: usize = 4;
pub const NY: usize = 3;
pub const NCELL: usize = NX * NY;
pub const NNODE: usize = (NX + 1) * (NY + 1);
pub const NBEDGE: usize = 2 * (NX + NY);

/// What `op2rs` printed and its exit status.
pub struct Out {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Run the built binary with `args`.
pub fn op2rs(args: &[&str]) -> Out {
    let _guard = files();
    let o = Command::new(env!("CARGO_BIN_EXE_op2rs"))
        .args(args)
        .output()
        .expect("run op2rs");
    Out {
        code: o.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
    }
}

/// Run the built binary with the words of `line` (`{m}`: the mesh path,
/// `{o}`: the output path; paths without spaces).
pub fn run_line(line: &str, mesh: &Path, out: &Path) -> Out {
    let line = line.replace("{m}", s(mesh)).replace("{o}", s(out));
    let words: Vec<&str> = line.split_whitespace().collect();
    op2rs(&words)
}

/// Assert a failure whose stderr holds `want`.
pub fn fails_with(o: &Out, want: &str) {
    assert_eq!(o.code, 1, "{}{}", o.stdout, o.stderr);
    assert!(o.stderr.contains(want), "want {want:?} in {}", o.stderr);
}

fn bytes_f64(v: &[f64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_ne_bytes()).collect()
}
fn bytes_f32(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_ne_bytes()).collect()
}
fn bytes_i32(v: &[i32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_ne_bytes()).collect()
}

pub fn node(i: usize, j: usize) -> i32 {
    (j * (NX + 1) + i) as i32
}

/// Cell → node (counter-clockwise), row-major cells.
pub fn pcell() -> Vec<i32> {
    let mut v = Vec::new();
    for j in 0..NY {
        for i in 0..NX {
            v.extend([
                node(i, j),
                node(i + 1, j),
                node(i + 1, j + 1),
                node(i, j + 1),
            ]);
        }
    }
    v
}

/// Boundary edge → node.
pub fn pbedge() -> Vec<i32> {
    let mut v = Vec::new();
    for i in 0..NX {
        v.extend([node(i, 0), node(i + 1, 0)]);
        v.extend([node(i, NY), node(i + 1, NY)]);
    }
    for j in 0..NY {
        v.extend([node(0, j), node(0, j + 1)]);
        v.extend([node(NX, j), node(NX, j + 1)]);
    }
    v
}

/// Boundary edge → its cell (in pbedge's order).
pub fn pbecell() -> Vec<i32> {
    let cell = |i: usize, j: usize| (j * NX + i) as i32;
    let mut v = Vec::new();
    for i in 0..NX {
        v.extend([cell(i, 0), cell(i, NY - 1)]);
    }
    for j in 0..NY {
        v.extend([cell(0, j), cell(NX - 1, j)]);
    }
    v
}

/// Node coordinates: x = i, y = 0.5 j.
pub fn coords() -> Vec<f64> {
    let mut v = Vec::new();
    for j in 0..=NY {
        for i in 0..=NX {
            v.extend([i as f64, 0.5 * j as f64]);
        }
    }
    v
}

/// q on cells: [c, 10c, -c, 0.25 + c].
pub fn q() -> Vec<f64> {
    (0..NCELL)
        .flat_map(|c| {
            let c = c as f64;
            [c, 10.0 * c, -c, 0.25 + c]
        })
        .collect()
}

/// Options of a test mesh.
#[derive(Clone, Copy, Default)]
pub struct Opts {
    /// element 4, entry 1 of pcell set to 9999
    pub bad_map: bool,
    /// a dat with 7 rows (no set of that size)
    pub bad_dat: bool,
    /// a 2-D dataset without OP2's attributes
    pub foreign: bool,
    /// a set "faces" as large as "cells", and a dat "results/p" in a group
    pub twin: bool,
}

/// Write the structured quad mesh to `path`.
pub fn write_mesh(path: &Path, o: Opts) {
    let _guard = files();
    let f = H5File::open(path.to_str().unwrap(), Mode::Truncate, Access::default()).unwrap();
    f.write_set("cells", NCELL as u64).unwrap();
    f.write_set("nodes", NNODE as u64).unwrap();
    f.write_set("bedges", NBEDGE as u64).unwrap();
    let mut pc = pcell();
    if o.bad_map {
        pc[4 * 4 + 1] = 9999;
    }
    let m = f.create_map("pcell", NCELL as u64, 4, false).unwrap();
    f.write_map_rows(&m, 0..NCELL as u64, &MapData::Int(pc))
        .unwrap();
    let m = f.create_map("pbedge", NBEDGE as u64, 2, false).unwrap();
    f.write_map_rows(&m, 0..NBEDGE as u64, &MapData::Int(pbedge()))
        .unwrap();
    let m = f.create_map("pbecell", NBEDGE as u64, 1, false).unwrap();
    f.write_map_rows(&m, 0..NBEDGE as u64, &MapData::Int(pbecell()))
        .unwrap();
    let d = f.create_dat("x", NNODE as u64, 2, "double").unwrap();
    f.write_rows(&d, 0..NNODE as u64, ElemType::Double, &bytes_f64(&coords()))
        .unwrap();
    let d = f.create_dat("q", NCELL as u64, 4, "double").unwrap();
    f.write_rows(&d, 0..NCELL as u64, ElemType::Double, &bytes_f64(&q()))
        .unwrap();
    let area: Vec<f32> = (0..NCELL).map(|c| 0.5 + 0.1 * c as f32).collect();
    let d = f.create_dat("area", NCELL as u64, 1, "float").unwrap();
    f.write_rows(&d, 0..NCELL as u64, ElemType::Float, &bytes_f32(&area))
        .unwrap();
    let flag: Vec<i32> = (0..NNODE as i32).map(|n| n % 3).collect();
    let d = f.create_dat("flag", NNODE as u64, 1, "int").unwrap();
    f.write_rows(&d, 0..NNODE as u64, ElemType::Int, &bytes_i32(&flag))
        .unwrap();
    let bound: Vec<i32> = (0..NBEDGE as i32).map(|e| 1 + e % 2).collect();
    let d = f.create_dat("bound", NBEDGE as u64, 1, "int").unwrap();
    f.write_rows(&d, 0..NBEDGE as u64, ElemType::Int, &bytes_i32(&bound))
        .unwrap();
    f.write_const("gam", 1, "double", &1.4f64.to_ne_bytes())
        .unwrap();
    f.write_const("eps", 2, "double", &bytes_f64(&[0.5, -2.0]))
        .unwrap();
    if o.bad_dat {
        let d = f.create_dat("odd", 7, 1, "double").unwrap();
        f.write_rows(&d, 0..7, ElemType::Double, &bytes_f64(&[1.0; 7]))
            .unwrap();
    }
    if o.twin {
        f.write_set("faces", NCELL as u64).unwrap();
        let p: Vec<f64> = (0..NCELL).map(|c| c as f64).collect();
        let d = f
            .create_dat("results/p", NCELL as u64, 1, "double")
            .unwrap();
        f.write_rows(&d, 0..NCELL as u64, ElemType::Double, &bytes_f64(&p))
            .unwrap();
    }
    if o.foreign {
        let d = f
            .create_dataset("foreign", &[3, 3], ElemType::Double)
            .unwrap();
        f.write_rows(&d, 0..3, ElemType::Double, &bytes_f64(&[0.0; 9]))
            .unwrap();
    }
}

/// A fresh temporary directory and a mesh in it.
pub fn mesh(o: Opts) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("mesh.h5");
    write_mesh(&p, o);
    (dir, p)
}

/// The path as &str.
pub fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}
