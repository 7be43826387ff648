//! `op2rs info` on good and bad files.

mod common;
use common::*;

#[test]
fn info_lists_everything() {
    let (_d, p) = mesh(Opts::default());
    let o = op2rs(&["info", s(&p)]);
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    let t = &o.stdout;
    assert!(t.contains("sets (3):"), "{t}");
    assert!(t.contains("maps (3):"), "{t}");
    assert!(
        t.contains("  pbecell  bedges -> cells  dim 1  int  all entries in range"),
        "{t}"
    );
    assert!(t.contains("  cells  size 12"), "{t}");
    assert!(t.contains("  nodes  size 20"), "{t}");
    assert!(
        t.contains("  pcell  cells -> nodes  dim 4  int  all entries in range"),
        "{t}"
    );
    assert!(
        t.contains("  pbedge  bedges -> nodes  dim 2  int  all entries in range"),
        "{t}"
    );
    assert!(
        t.contains("  x  on nodes  dim 2  double  min [0, 0]  max [4, 1.5]"),
        "{t}"
    );
    assert!(
        t.contains("  q  on cells  dim 4  double  min [0, 0, -11, 0.25]  max [11, 110, 0, 11.25]"),
        "{t}"
    );
    assert!(
        t.contains("  flag  on nodes  dim 1  int  min [0]  max [2]"),
        "{t}"
    );
    assert!(
        t.contains("  area  on cells  dim 1  float  min [0.5]  max [1.6]"),
        "{t}"
    );
    assert!(t.contains("constants (2):"), "{t}");
    assert!(t.contains("  gam  dim 1  double  [1.4]"), "{t}");
    assert!(t.contains("  eps  dim 2  double  [0.5, -2]"), "{t}");
    assert!(t.contains("no problems found"), "{t}");
    assert!(o.stderr.is_empty(), "{}", o.stderr);
}

#[test]
fn info_map_out_of_range() {
    let (_d, p) = mesh(Opts {
        bad_map: true,
        ..Opts::default()
    });
    let o = op2rs(&["info", s(&p)]);
    assert_eq!(o.code, 1, "{}{}", o.stdout, o.stderr);
    assert!(
        o.stderr.contains(
            "op2rs info: map 'pcell': entry 1 of element 4 is 9999, outside set 'nodes' (size 20)"
        ),
        "{}",
        o.stderr
    );
    assert!(o.stdout.contains("1 entries OUT OF RANGE"), "{}", o.stdout);
}

#[test]
fn info_dat_fits_no_set() {
    let (_d, p) = mesh(Opts {
        bad_dat: true,
        ..Opts::default()
    });
    let o = op2rs(&["info", s(&p)]);
    assert_eq!(o.code, 1);
    assert!(
        o.stderr.contains("op2rs info: dat 'odd' has 7 rows, no set has that many elements (sets: bedges (14), cells (12), nodes (20))"),
        "{}",
        o.stderr
    );
}

#[test]
fn info_dat_on_given_set_of_other_size() {
    let (_d, p) = mesh(Opts::default());
    let o = op2rs(&["info", s(&p), "--set", "q=nodes"]);
    assert_eq!(o.code, 1);
    assert!(
        o.stderr
            .contains("op2rs info: dat 'q' has 12 rows, its set 'nodes' has 20 elements"),
        "{}",
        o.stderr
    );
}

#[test]
fn info_foreign_dataset() {
    let (_d, p) = mesh(Opts {
        foreign: true,
        ..Opts::default()
    });
    let o = op2rs(&["info", s(&p)]);
    assert_eq!(o.code, 1);
    assert!(
        o.stderr.contains("op2rs info: dataset 'foreign' (extent [3, 3]) has no size/dim/type attributes and is not a 1-element integer (a set size): not OP2's layout"),
        "{}",
        o.stderr
    );
}

#[test]
fn info_missing_and_not_hdf5() {
    let d = tempfile::tempdir().unwrap();
    let missing = d.path().join("nope.h5");
    let o = op2rs(&["info", s(&missing)]);
    assert_eq!(o.code, 1);
    assert!(o.stderr.starts_with("op2rs info: file '"), "{}", o.stderr);
    assert!(o.stderr.contains("nope.h5' does not exist"), "{}", o.stderr);
    let text = d.path().join("text.h5");
    std::fs::write(&text, "hello\n").unwrap();
    let o = op2rs(&["info", s(&text)]);
    assert_eq!(o.code, 1);
    assert!(
        o.stderr.contains("text.h5' is not an HDF5 file"),
        "{}",
        o.stderr
    );
}

#[test]
fn info_bad_set_option() {
    let (_d, p) = mesh(Opts::default());
    let o = op2rs(&["info", s(&p), "--set", "q=faces"]);
    assert_eq!(o.code, 1);
    assert!(
        o.stderr
            .contains("op2rs info: --set q=faces: the file has no set 'faces'"),
        "{}",
        o.stderr
    );
    let o = op2rs(&["info", s(&p), "--set", "zz=cells"]);
    assert!(
        o.stderr
            .contains("op2rs info: --set zz=...: the file has no map or dat 'zz'"),
        "{}",
        o.stderr
    );
    let o = op2rs(&["info", s(&p), "--set", "qcells"]);
    assert!(
        o.stderr
            .contains("op2rs info: --set 'qcells': expected NAME=SET"),
        "{}",
        o.stderr
    );
}

#[test]
fn help_for_every_command() {
    for c in ["info", "vtk", "partition", "report"] {
        let o = op2rs(&[c, "--help"]);
        assert_eq!(o.code, 0, "{c}");
        assert!(o.stdout.contains("Usage: op2rs"), "{c}: {}", o.stdout);
    }
    let o = op2rs(&["--help"]);
    assert!(
        o.stdout.contains("OP2's files do not record which set"),
        "{}",
        o.stdout
    );
}

#[test]
fn info_ambiguous_sets_and_groups() {
    let (_d, p) = mesh(Opts {
        twin: true,
        ..Opts::default()
    });
    let o = op2rs(&["info", s(&p)]);
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    let t = &o.stdout;
    assert!(
        t.contains("  q  on cells? (also fits: faces)  dim 4"),
        "{t}"
    );
    assert!(
        t.contains("  results/p  on cells? (also fits: faces)  dim 1  double  min [0]  max [11]"),
        "{t}"
    );
    assert!(
        t.contains("  pcell  cells? (also fits: faces) -> nodes  dim 4"),
        "{t}"
    );
    assert!(
        t.contains(
            "dat 'q': the set is ambiguous (cells? (also fits: faces)); name it with --set q=SET"
        ),
        "{t}"
    );
    let o = op2rs(&["info", s(&p), "--set", "q=faces,pcell=faces:nodes"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout.contains("  q  on faces (--set)  dim 4"),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout
            .contains("  pcell  faces (--set) -> nodes (--set)  dim 4"),
        "{}",
        o.stdout
    );
    assert!(
        !o.stdout.contains("dat 'q': the set is ambiguous"),
        "{}",
        o.stdout
    );
}
