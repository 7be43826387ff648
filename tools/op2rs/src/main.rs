//! `op2rs`: look at OP2-layout HDF5 meshes and op2-rs profiles.
//!
//! * `op2rs info FILE.h5`: sets, maps, dats and constants, with every
//!   inconsistency listed (non-zero exit status when there is one);
//! * `op2rs vtk FILE.h5 --cells MAP --coords DAT -o OUT.vtk`: a VTK
//!   unstructured grid for ParaView (legacy ASCII, or XML for `.vtu`);
//! * `op2rs partition FILE.h5 --ranks N ...`: op2-core's partitioners run on
//!   simulated ranks, quality figures, and the rank of every cell in VTK;
//! * `op2rs report PROFILE.json -o report.html`: one self-contained HTML page.
//!
//! Every error is one line `op2rs COMMAND: ...` on stderr, exit status 1.

mod cells;
mod info;
mod mesh;
mod partition;
mod report;
mod vtk;
mod vtu;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Inspect OP2-layout HDF5 meshes (sets, maps, dats, constants) and
/// op2-rs profiles.
///
/// OP2's files do not record which set a map or dat lives on: op2rs infers
/// it (dats and map from-sets: the set whose size equals the row count; map
/// to-sets: the set that holds the most entries in range, then the one whose
/// size is the largest entry plus one, then the smallest). `info` marks a
/// guess with several candidates as `SET? (also fits: ...)`; `--set` decides.
#[derive(Parser, Debug)]
#[command(name = "op2rs", version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Options naming the sets of maps and dats (shared by the mesh commands).
#[derive(clap::Args, Debug, Clone, Default)]
pub struct SetArgs {
    /// The set of a dat (`DAT=SET`) or the from- and to-set of a map
    /// (`MAP=FROM:TO`, `MAP=:TO`), instead of inferring them; repeatable,
    /// or comma-separated.
    #[arg(long = "set", value_name = "NAME=SET", value_delimiter = ',')]
    pub set: Vec<String>,
}

/// The cells and points of a VTK file (shared by `vtk` and `partition`).
#[derive(clap::Args, Debug, Clone)]
pub struct GridArgs {
    /// The map whose rows are the cells (its from-set is the cells' set).
    #[arg(long, value_name = "MAP")]
    pub cells: String,
    /// The dat holding the point coordinates (dim 2 or 3) on the map's to-set.
    #[arg(long, value_name = "DAT")]
    pub coords: String,
    /// Dats to write: CELL_DATA when on the cells' set, POINT_DATA when on
    /// the points' set (comma-separated).
    #[arg(long, value_name = "A,B", value_delimiter = ',')]
    pub dats: Vec<String>,
    /// VTK cell type, instead of the rule on the map's dim (1 vertex, 2 line,
    /// 3 triangle, 4 quad, 8 hexahedron): vertex, line, triangle, quad,
    /// tetra, hexahedron, wedge, pyramid, polygon, polyline.
    #[arg(long, value_name = "TYPE")]
    pub cell_type: Option<String>,
    /// Output file: OUT.vtu is written as XML VTK (ASCII data arrays),
    /// any other name (OUT.vtk) as legacy ASCII VTK.
    #[arg(short = 'o', long, value_name = "OUT.vtk|OUT.vtu")]
    pub output: String,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// List the sets, maps, dats and constants of an OP2-layout HDF5 file and
    /// check them.
    ///
    /// Maps: from-set, to-set, dim, and whether every entry is inside the
    /// to-set. Dats: set, dim, type, and min/max per component. Exit status
    /// 1, with each problem on stderr, when the file is inconsistent (a map
    /// entry out of range, a dat or map whose row count fits no set, a
    /// dataset that is not OP2's layout).
    Info {
        /// The HDF5 file.
        file: String,
        #[command(flatten)]
        sets: SetArgs,
    },
    /// Write a mesh as a VTK unstructured grid for ParaView (legacy ASCII
    /// .vtk, or XML .vtu when -o ends in .vtu).
    ///
    /// Points: the --coords dat (2-D coordinates get z = 0). Cells: the rows
    /// of the --cells map, whose entries index the points. Cell type from
    /// the map's dim: 1 vertex, 2 line, 3 triangle, 4 quad (also with 3-D
    /// coordinates: give --cell-type tetra for tetrahedra), 8 hexahedron;
    /// any other dim needs --cell-type. Each --dats entry is written as
    /// CELL_DATA (on the map's from-set) or POINT_DATA (on the coordinates'
    /// set) field arrays.
    Vtk {
        /// The HDF5 file.
        file: String,
        #[command(flatten)]
        grid: GridArgs,
        #[command(flatten)]
        sets: SetArgs,
    },
    /// Partition the cells over simulated ranks and write the rank of each
    /// cell (cell data `rank`) in a VTK file like `vtk` (.vtk or .vtu).
    ///
    /// Partitioners (op2-core's, as libop2_mpi runs them): rcb (recursive
    /// coordinate bisection of the cell centroids, default), inertial
    /// (inertial bisection of the centroids), block (OP2's block
    /// distribution), random (balanced random, --seed). Prints the part
    /// sizes, the imbalance (largest part over the average), the edge cut
    /// (pairs of cells on different ranks among those sharing a face: 1
    /// point for vertices and lines, 2 for triangles, quads and polygons, 3
    /// for tetrahedra, wedges and pyramids, 4 for hexahedra) and each rank's
    /// halo: the cells of other ranks that touch a point of one of its
    /// cells.
    Partition {
        /// The HDF5 file.
        file: String,
        /// Number of simulated ranks.
        #[arg(long, value_name = "N")]
        ranks: usize,
        /// kway (METIS on the cells' face graph: what libop2_mpi runs for
        /// OP2's KWAY names without PT-Scotch), rcb, inertial, block or random.
        #[arg(long, value_name = "NAME", default_value = "rcb")]
        partitioner: String,
        /// Seed of the random partitioner.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        #[command(flatten)]
        grid: GridArgs,
        #[command(flatten)]
        sets: SetArgs,
    },
    /// Turn an op2-rs JSON profile (OP_PROFILE_JSON_OUTPUT) into one
    /// self-contained HTML page: each loop a horizontal bar.
    ///
    /// Per loop: time, share of the run's total, call count; with --timings
    /// (the CSV of op_timings_to_csv / OP_TIMINGS_CSV) also plan time, bytes
    /// moved and achieved bandwidth. Inline CSS and SVG only.
    Report {
        /// The JSON profile.
        profile: String,
        /// op2-rs's timings CSV (columns: rank, thread, nranks, nthreads,
        /// count, total time, plan time, mpi time, GB used, GB total, kernel name).
        #[arg(long, value_name = "CSV")]
        timings: Option<String>,
        /// Output HTML file.
        #[arg(short = 'o', long, value_name = "report.html")]
        output: String,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let (name, result) = match cli.command {
        Command::Info { file, sets } => ("info", info::run(&file, &sets)),
        Command::Vtk { file, grid, sets } => ("vtk", vtk::run(&file, &grid, &sets)),
        Command::Partition {
            file,
            ranks,
            partitioner,
            seed,
            grid,
            sets,
        } => (
            "partition",
            partition::run(&file, ranks, &partitioner, seed, &grid, &sets),
        ),
        Command::Report {
            profile,
            timings,
            output,
        } => ("report", report::run(&profile, timings.as_deref(), &output)),
    };
    match result {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(msgs) => {
            for m in msgs.lines() {
                eprintln!("op2rs {name}: {m}");
            }
            ExitCode::from(1)
        }
    }
}
