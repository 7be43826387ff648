//! `op2rs report`: a profile written by op2-core's profiler (the code that
//! writes OP_PROFILE_JSON_OUTPUT) and its timings CSV, as one HTML page.

mod common;
use common::*;
use op2_core::profile::{timings_csv, KernelFigures, Profiler};
use std::time::{Duration, Instant};

fn at(t: Instant, us: u64) -> Instant {
    t + Duration::from_micros(us)
}

/// A run of 10 ms: save_soln twice, adt_calc once inside region "iter",
/// res_calc once at the top and once inside "iter" (one loop, summed).
fn profile_json() -> String {
    let t = Instant::now();
    let mut p = Profiler::new(2);
    p.start("airfoil", at(t, 0));
    p.enter_kernel("save_soln", "seq", "Direct", at(t, 0));
    p.exit(at(t, 500));
    p.enter_kernel("save_soln", "seq", "Direct", at(t, 600));
    p.exit(at(t, 1_100));
    p.enter_kernel("res_calc", "seq", "Indirect", at(t, 1_100));
    p.exit(at(t, 3_100));
    p.enter("iter", at(t, 3_100));
    p.enter_kernel("adt_calc", "seq", "Indirect", at(t, 3_100));
    p.exit(at(t, 4_100));
    p.enter_kernel("res_calc", "seq", "Indirect", at(t, 4_100));
    p.exit(at(t, 8_100));
    p.exit(at(t, 8_100));
    p.end(at(t, 10_000));
    p.output_json().expect("profile at level 2")
}

fn figures(name: &str, count: i64, time: f64, plan: f64, bytes: f64) -> KernelFigures {
    KernelFigures {
        name: name.to_string(),
        count,
        times: vec![time],
        plan_time: plan,
        mpi_time: 0.0,
        transfer: bytes,
        transfer2: bytes,
    }
}

/// Check that every tag is closed in order (void tags written `<x/>`),
/// and return the opening tags met with their attributes.
fn well_formed(html: &str) -> Vec<String> {
    let mut stack: Vec<String> = Vec::new();
    let mut opened = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find('<') {
        let j = rest[i..].find('>').expect("unclosed '<'") + i;
        let tag = &rest[i + 1..j];
        rest = &rest[j + 1..];
        if tag.starts_with('!') {
            continue;
        }
        if let Some(name) = tag.strip_prefix('/') {
            let top = stack
                .pop()
                .unwrap_or_else(|| panic!("</{name}> closes nothing"));
            assert_eq!(top, name, "</{name}> closes <{top}>");
        } else {
            let name = tag.split_whitespace().next().unwrap().trim_end_matches('/');
            opened.push(tag.to_string());
            if !tag.ends_with('/') {
                stack.push(name.to_string());
            }
        }
    }
    assert!(stack.is_empty(), "unclosed: {stack:?}");
    opened
}

/// The text of every `<td class="CLASS">` in order.
fn cells(html: &str, class: &str) -> Vec<String> {
    let open = format!("<td class=\"{class}\">");
    html.split(&open)
        .skip(1)
        .map(|s| s[..s.find("</td>").unwrap()].to_string())
        .collect()
}

#[test]
fn report_one_bar_per_loop() {
    let d = tempfile::tempdir().unwrap();
    let json = d.path().join("profile.json");
    std::fs::write(&json, profile_json()).unwrap();
    let csv = d.path().join("timings.csv");
    let rows = vec![
        figures("save_soln", 2, 0.001, 0.0, 4e6),
        figures("adt_calc", 1, 0.001, 0.0, 2e6),
        figures("res_calc", 2, 0.006, 0.0005, 3e7),
    ];
    std::fs::write(&csv, timings_csv(&[rows])).unwrap();
    let out = d.path().join("report.html");
    let o = op2rs(&["report", s(&json), "--timings", s(&csv), "-o", s(&out)]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout.contains("3 loops, total 10.000 ms"),
        "{}",
        o.stdout
    );
    let html = std::fs::read_to_string(&out).unwrap();
    let tags = well_formed(&html);
    assert!(
        !html.contains("http") && !html.contains("<script"),
        "{html}"
    );
    assert_eq!(tags.iter().filter(|t| *t == "tr class=\"loop\"").count(), 3);
    assert_eq!(
        tags.iter()
            .filter(|t| t.starts_with("rect class=\"bar\""))
            .count(),
        3
    );
    // longest first; loops of equal time keep the tree's order
    assert_eq!(
        cells(&html, "name"),
        [
            "res_calc/seq/Indirect",
            "save_soln/seq/Direct",
            "adt_calc/seq/Indirect"
        ]
    );
    assert_eq!(cells(&html, "time"), ["6.000 ms", "1.000 ms", "1.000 ms"]);
    assert_eq!(cells(&html, "share"), ["60.0%", "10.0%", "10.0%"]);
    assert_eq!(cells(&html, "calls"), ["2", "2", "1"]);
    assert_eq!(cells(&html, "bytes"), ["30.000 MB", "4.000 MB", "2.000 MB"]);
    assert_eq!(
        cells(&html, "bandwidth"),
        ["5.00 GB/s", "4.00 GB/s", "2.00 GB/s"]
    );
    assert_eq!(cells(&html, "plan"), ["500.000 µs", "0.000 µs", "0.000 µs"]);
    assert!(
        html.contains("width=\"300.0\""),
        "longest bar full width: {html}"
    );
    assert!(
        html.contains("width=\"50.0\""),
        "1/6 of the longest: {html}"
    );
}

#[test]
fn report_without_timings_and_bad_input() {
    let d = tempfile::tempdir().unwrap();
    let json = d.path().join("p.json");
    std::fs::write(&json, profile_json()).unwrap();
    let out = d.path().join("r.html");
    let o = op2rs(&["report", s(&json), "-o", s(&out)]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let html = std::fs::read_to_string(&out).unwrap();
    well_formed(&html);
    assert!(cells(&html, "bytes").is_empty());
    assert_eq!(cells(&html, "share"), ["60.0%", "10.0%", "10.0%"]);

    std::fs::write(&json, "{\"a\": 1").unwrap();
    let o = op2rs(&["report", s(&json), "-o", s(&out)]);
    assert_eq!(o.code, 1);
    assert!(
        o.stderr.starts_with("op2rs report: profile '") && o.stderr.contains("p.json' is not JSON"),
        "{}",
        o.stderr
    );
    std::fs::write(&json, "{\"children\":[],\"clock\":{\"max\":1,\"min\":1,\"n\":1,\"total\":1},\"name\":\"x\",\"num_ranks\":1,\"type\":0}").unwrap();
    let o = op2rs(&["report", s(&json), "-o", s(&out)]);
    assert_eq!(o.code, 1);
    assert!(
        o.stderr
            .contains("p.json' has no loops (no node of type 1)"),
        "{}",
        o.stderr
    );
    let o = op2rs(&["report", "/nonexistent/p.json", "-o", s(&out)]);
    assert_eq!(o.code, 1);
    assert!(
        o.stderr
            .starts_with("op2rs report: profile '/nonexistent/p.json': "),
        "{}",
        o.stderr
    );
}

/// A profile merged from 3 ranks (as the root writes it under MPI): times
/// are the mean per rank, each loop gets an imbalance and one bar per rank.
#[test]
fn report_of_three_ranks_has_a_bar_per_rank() {
    let t = Instant::now();
    let rank = |scale: u64| {
        let mut p = Profiler::new(2);
        p.start("airfoil_mpi", at(t, 0));
        p.enter_kernel("res_calc", "seq", "Indirect", at(t, 0));
        p.exit(at(t, 1_000 * scale));
        p.enter_kernel("update", "seq", "Direct", at(t, 1_000 * scale));
        p.exit(at(t, 1_500 * scale));
        p.end(at(t, 2_000 * scale));
        p.encode()
    };
    let merged = Profiler::merged(&[rank(1), rank(2), rank(3)], 2).unwrap();
    let json = merged.output_json().unwrap();
    assert!(
        json.contains("\"rank_totals\":[1000000,2000000,3000000]"),
        "{json}"
    );
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join("mpi.json");
    std::fs::write(&path, json).unwrap();
    let out = d.path().join("r.html");
    let o = op2rs(&["report", s(&path), "-o", s(&out)]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.contains("2 loops, total 4.000 ms"), "{}", o.stdout);
    let html = std::fs::read_to_string(&out).unwrap();
    let tags = well_formed(&html);
    assert!(
        html.contains("3 MPI ranks: times and calls are the mean over ranks"),
        "{html}"
    );
    assert_eq!(cells(&html, "time"), ["2.000 ms", "1.000 ms"]);
    assert_eq!(cells(&html, "share"), ["50.0%", "25.0%"]);
    assert_eq!(cells(&html, "imbalance"), ["1.50", "1.50"]);
    assert_eq!(cells(&html, "calls"), ["1", "1"], "per rank");
    assert_eq!(
        tags.iter().filter(|t| *t == "tr class=\"ranks\"").count(),
        2
    );
    let bars: Vec<&String> = tags
        .iter()
        .filter(|t| t.starts_with("rect class=\"rank\""))
        .collect();
    assert_eq!(bars.len(), 6);
    // the slowest rank's res_calc (3 ms) is the longest bar of the page
    assert!(bars[2].contains("width=\"300.0\""), "{bars:?}");
    assert!(bars[0].contains("width=\"100.0\""), "{bars:?}");
    assert!(html.contains("<title>rank 2: 3.000 ms</title>"), "{html}");
    assert_eq!(
        cells(&html, "rank-range\" colspan=\"3"),
        [
            "3 ranks: 1.000 ms to 3.000 ms",
            "3 ranks: 500.000 µs to 1.500 ms"
        ]
    );

    let bad = json_with_bad_ranks();
    std::fs::write(&path, bad).unwrap();
    let o = op2rs(&["report", s(&path), "-o", s(&out)]);
    assert_eq!(o.code, 1);
    assert!(
        o.stderr
            .contains("node 'k/seq/Direct' has a malformed rank_totals"),
        "{}",
        o.stderr
    );
}

fn json_with_bad_ranks() -> &'static str {
    "{\"children\":[{\"children\":[],\"clock\":{\"max\":1,\"min\":1,\"n\":1,\"total\":1},\"name\":\"k/seq/Direct\",\"num_ranks\":2,\"rank_totals\":[1,\"x\"],\"type\":1}],\"clock\":{\"max\":1,\"min\":1,\"n\":1,\"total\":2},\"name\":\"x\",\"num_ranks\":2,\"type\":0}"
}
