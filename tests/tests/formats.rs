//! What OP2 prints and writes, byte for byte: dat dumps (text and binary),
//! the timing table, the diagnostic tables, op_printf, op_init's option
//! messages, plus op_malloc alignment and op_timers. The program is
//! tests/c/formats.c, one mode per argv[1]; where the expected output comes
//! from C's own printf the program writes it next to OP2's.

mod common;

use common::assert_all_pass;
use op2_tests::{build_once, out_dir, run, Lang, Program, Run};
use std::path::PathBuf;

fn exe() -> PathBuf {
    build_once(&Program::new("formats", Lang::C99, &["tests/c/formats.c"]))
}

/// Run a mode in scratch directory `tag`; returns the run and that directory.
fn run_mode(args: &[&str], tag: &str) -> (Run, PathBuf) {
    let r = run(&exe(), args, tag);
    (r, out_dir().join("runs").join(tag))
}

const BANNER: &str = "\n Initializing OP2\n";

fn read(dir: &std::path::Path, name: &str) -> Vec<u8> {
    std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// op_print_dat_to_txtfile equals fprintf with OP2's formats: `"<n> <dim>\n"`,
/// then `" %+2.15lE"` (double, -0.0 as +0), `" %+f"` (float), `" %+d"` (int),
/// `" %+ld"` (long) per value and a newline per element; also for an empty
/// set and for infinities and NaNs.
#[test]
fn txt_dump_matches_printf() {
    let (r, dir) = run_mode(&["txt"], "formats-txt");
    r.ok();
    for name in ["double", "float", "int", "long", "empty", "special"] {
        let got = read(&dir, &format!("{name}.txt"));
        let want = read(&dir, &format!("{name}.want"));
        assert!(
            got == want,
            "{name}.txt differs from printf's\n--- op2:\n{}--- printf:\n{}",
            String::from_utf8_lossy(&got),
            String::from_utf8_lossy(&want)
        );
    }
    // The C reference itself, pinned down where printf leaves no doubt.
    let int = String::from_utf8(read(&dir, "int.txt")).unwrap();
    assert_eq!(
        int,
        "6 1\n +0\n -1\n +2147483647\n -2147483648\n +42\n -42\n"
    );
    let dbl = String::from_utf8(read(&dir, "double.txt")).unwrap();
    assert!(dbl.starts_with(
        "4 3\n +1.000000000000000E+00 +0.000000000000000E+00 +0.000000000000000E+00\n"
    ));
    assert_eq!(String::from_utf8(read(&dir, "empty.txt")).unwrap(), "0 2\n");
}

/// op_print_dat_to_binfile: int32 count, int32 dim, then the raw elements.
#[test]
fn bin_dump_is_header_and_raw_bytes() {
    let (r, dir) = run_mode(&["bin"], "formats-bin");
    r.ok();
    for (name, n, dim, scalar) in [("double", 4, 3, 8), ("int", 6, 1, 4)] {
        let got = read(&dir, &format!("{name}.bin"));
        assert_eq!(got, read(&dir, &format!("{name}.want")), "{name}.bin");
        assert_eq!(got.len(), 8 + n * dim * scalar, "{name}.bin length");
        assert_eq!(i32::from_ne_bytes(got[0..4].try_into().unwrap()), n as i32);
        assert_eq!(
            i32::from_ne_bytes(got[4..8].try_into().unwrap()),
            dim as i32
        );
    }
}

/// One row of the timing table when transfer2 is 0 (abi.md §8.1):
/// ` %6d;  %8.4f;  %8.4f(%8.4f);  %8.4f(%8.4f);  %8.4f;         ;   %s `.
/// Returns (count, kernel name).
fn parse_timing_row(line: &str) -> (i64, String) {
    let f: Vec<&str> = line.split(';').collect();
    assert_eq!(f.len(), 7, "fields of {line:?}");
    let num = |s: &str, width: usize| {
        assert_eq!(s.len(), width, "width of {s:?} in {line:?}");
        let t = s.trim_start();
        let (_, dec) = t.split_once('.').unwrap_or_else(|| panic!("{s:?}"));
        assert_eq!(dec.len(), 4, "%8.4f in {line:?}");
        t.parse::<f64>()
            .unwrap_or_else(|_| panic!("{s:?} in {line:?}"))
    };
    let pair = |s: &str| {
        let s = s.strip_prefix("  ").expect("two spaces before a pair");
        let (a, b) = s.split_once('(').expect("mean(std)");
        num(a, 8);
        num(b.strip_suffix(')').expect("(std)"), 8);
    };
    assert_eq!(f[0].len(), 7, "%6d in {line:?}");
    let count = f[0].trim().parse().expect("count");
    num(f[1].strip_prefix("  ").expect("plan time"), 8);
    pair(f[2]);
    pair(f[3]);
    num(f[4].strip_prefix("  ").expect("GB/s"), 8);
    assert_eq!(f[5], "         ", "empty second GB/s in {line:?}");
    let name = f[6]
        .strip_prefix("   ")
        .and_then(|s| s.strip_suffix(' '))
        .expect("'   name '");
    (count, name.to_string())
}

/// op_timing_output prints nothing before any loop ran; after two loops ran
/// 7 and 3 times: a blank line, OP2's header, 91 dashes, one row per kernel
/// with the right count, and (sequential library) no "Total plan time".
#[test]
fn timing_table_lists_kernels_and_counts() {
    let (r, _) = run_mode(&["timing"], "formats-timing");
    r.ok();
    let (before, table) = r
        .stdout
        .split_once("--- loops\n")
        .expect("marker before the loops");
    assert_eq!(
        before, BANNER,
        "op_timing_output printed before any loop ran"
    );
    let table = table.strip_suffix("--- end\n").expect("end marker");
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 5, "blank, header, dashes, 2 rows:\n{table}");
    assert_eq!(lines[0], "");
    assert_eq!(
        lines[1],
        format!(
            "  count   plan time     MPI time(std)        time(std){}GB/s      GB/s   kernel name ",
            " ".repeat(11)
        )
    );
    assert_eq!(lines[2], format!(" {}", "-".repeat(91)));
    let mut rows: Vec<(i64, String)> = lines[3..].iter().map(|l| parse_timing_row(l)).collect();
    rows.sort_by(|a, b| a.1.cmp(&b.1));
    assert_eq!(
        rows,
        vec![
            (7, "alpha_kernel".to_string()),
            (3, "beta_kernel".to_string())
        ]
    );
    assert!(!r.stdout.contains("Total plan time"));
}

/// op_timings_to_csv: OP2's header, then one row per kernel that ran
/// (`rank,thread,nranks,nthreads,count,time,plan,mpi,GB,GB,name`, `%f` numbers).
#[test]
fn timings_csv_lists_kernels() {
    let (r, dir) = run_mode(&["timing"], "formats-timing-csv");
    r.ok();
    let csv = String::from_utf8(read(&dir, "timing.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("rank,thread,nranks,nthreads,count,total time,plan time,mpi time,GB used,GB total,kernel name")
    );
    let mut rows: Vec<(String, String)> = lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            assert_eq!(f.len(), 11, "{l:?}");
            assert_eq!(&f[..4], ["0", "0", "1", "1"], "{l:?}");
            for v in &f[5..10] {
                let (_, dec) = v.split_once('.').expect("%f");
                assert_eq!(dec.len(), 6, "{l:?}");
                v.parse::<f64>().unwrap();
            }
            (f[10].to_string(), f[4].to_string())
        })
        .collect();
    rows.sort();
    assert_eq!(
        rows,
        vec![
            ("alpha_kernel".to_string(), "7".to_string()),
            ("beta_kernel".to_string(), "3".to_string())
        ]
    );
}

/// op_timing_output_2_file as OP2 writes it (op_lib_core.cpp at b9e7a58d):
/// `"\n  count     time     GB/s     GB/s   kernel name "`, then
/// `"\n " + 47 dashes + " \n"`, rows `" %6d  %8.4f %8.4f            %s \n"`,
/// and `"Total kernel time = %f\n"`.
#[test]
fn timing_file_matches_op2_layout() {
    let (r, dir) = run_mode(&["timing"], "formats-timing-file");
    r.ok();
    let text = String::from_utf8(read(&dir, "timing.txt")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 6, "{text}");
    assert_eq!(lines[0], "");
    assert_eq!(
        lines[1],
        "  count     time     GB/s     GB/s   kernel name "
    );
    assert_eq!(lines[2], format!(" {} ", "-".repeat(47)));
    let mut rows: Vec<(i64, &str)> = lines[3..5]
        .iter()
        .map(|l| {
            assert_eq!(&l[26..38], " ".repeat(12), "{l:?}");
            let count = l[..7].trim().parse().expect("count");
            let name = l[38..].strip_suffix(' ').expect("trailing space");
            (count, name)
        })
        .collect();
    rows.sort_by_key(|r| r.1);
    assert_eq!(rows, vec![(7, "alpha_kernel"), (3, "beta_kernel")]);
    assert!(lines[5].starts_with("Total kernel time = "), "{text}");
}

/// op_dump_dat prints every value on its own line with OP2's `"%lf"`,
/// `"%f"` and `"%d"` (abi.md §1.5).
#[test]
fn dump_dat_prints_values_like_printf() {
    let (r, _) = run_mode(&["dump"], "formats-dump");
    r.ok();
    let body = r.stdout.strip_prefix(BANNER).expect("banner");
    let (op2, want) = body
        .strip_prefix("--- op2\n")
        .and_then(|b| b.split_once("--- printf\n"))
        .expect("markers");
    assert_eq!(want.lines().count(), 26);
    assert_eq!(op2, want);
}

/// op_diagnostic_output at diags 2: OP2's set, map and dat tables.
#[test]
fn diagnostic_tables_at_diags_2() {
    let (r, _) = run_mode(&["diags", "2"], "formats-diags2");
    r.ok();
    let want = format!(
        "{BANNER}--- diagnostics\n\
         \n  OP diagnostic output\n  {}\n\
         \n       set       size\n  {}\n     nodes          3\n     edges          3\n\
         \n       map        dim       from         to\n  {}\n     pedge          2      edges      nodes\n\
         \n       dat        dim        set\n  {}\n    coords          2      nodes\n     flags          1      edges\n\
         \n--- end\n",
        "-".repeat(20),
        "-".repeat(19),
        "-".repeat(41),
        "-".repeat(30)
    );
    assert_eq!(r.stdout, want);
}

/// Below diags 2 op_diagnostic_output prints nothing.
#[test]
fn no_diagnostic_tables_below_diags_2() {
    for level in ["0", "1"] {
        let (r, _) = run_mode(&["diags", level], &format!("formats-diags{level}"));
        r.ok();
        assert_eq!(r.stdout, format!("{BANNER}--- diagnostics\n--- end\n"));
    }
}

/// op_printf with 9 ints, 10 doubles, strings, a long, a char and an
/// unsigned (many passed on the stack) prints exactly what printf prints.
#[test]
fn op_printf_matches_printf() {
    let (r, _) = run_mode(&["printf"], "formats-printf");
    r.ok();
    let body = r.stdout.strip_prefix(BANNER).expect("banner first");
    let lines: Vec<&str> = body.lines().collect();
    assert_eq!(lines.len(), 4, "{body}");
    assert_eq!(lines[0], lines[1], "op_printf vs printf");
    assert_eq!(lines[2], lines[3], "op_printf vs printf");
    assert!(lines[0].starts_with("1 -2 3 -4 str 5 -6 7 -8 9 | 1.500 -2.250 3e+10"));
    assert!(lines[0].ends_with("| tail -1234567890123 z 4000000000"));
    assert_eq!(lines[2], "n=12 x=0.10000000000000001");
}

/// op_init's OP_PART_SIZE= / OP_BLOCK_SIZE= options (matched anywhere in an
/// argument) print OP2's messages and set the globals, which start at 0 and 64.
#[test]
fn op_init_options_set_globals() {
    let (r, _) = run_mode(
        &["options", "OP_PART_SIZE=128", "-OP_BLOCK_SIZE=32"],
        "formats-options",
    );
    r.ok();
    assert_eq!(
        r.stdout,
        format!(
            "before: part 0 block 64\n{BANNER}\n OP_part_size = 128 \n\n OP_block_size = 32 \nafter: part 128 block 32\n"
        )
    );
}

/// op_malloc (1 byte .. 4 MiB), op_calloc and op_realloc give 64-byte aligned
/// memory that keeps its contents, before and after op_init.
#[test]
fn op_malloc_is_aligned_before_and_after_init() {
    let (r, _) = run_mode(&["malloc"], "formats-malloc");
    assert_all_pass(
        &r,
        &[
            "malloc_before_init",
            "calloc_realloc_before_init",
            "malloc_after_init",
            "calloc_realloc_after_init",
        ],
    );
    assert!(
        r.stdout.find("PASS calloc_realloc_before_init").unwrap() < r.stdout.find(BANNER).unwrap()
    );
}

/// op_timers: wall seconds since the epoch, a 50 ms busy wait measures
/// 45 ms .. 5 s, and successive readings never decrease.
#[test]
fn op_timers_measure_wall_time() {
    let (r, _) = run_mode(&["timers"], "formats-timers");
    assert_all_pass(&r, &["timers_epoch", "timers_busy_wait", "timers_monotone"]);
}

/// op_exit resets OP2's globals, and a new op_init starts a working session.
#[test]
fn op_init_again_after_op_exit() {
    let (r, _) = run_mode(&["reinit"], "formats-reinit");
    assert_all_pass(
        &r,
        &["first_session", "globals_reset_by_exit", "second_session"],
    );
    assert_eq!(r.stdout.matches(BANNER).count(), 2, "{}", r.stdout);
}
