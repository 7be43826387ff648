//! `op2rs report`: an op2-rs JSON profile (OP2's layout: nodes with
//! `children`, `clock` {`max`,`min`,`n`,`total`} in nanoseconds, `name`,
//! `num_ranks`, `type` 0 region / 1 loop) as one self-contained HTML page.

use serde_json::Value;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// One loop: every kernel node of that name, summed.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Loop {
    pub name: String,
    /// seconds
    pub time: f64,
    pub calls: u64,
    /// from the timings CSV
    pub plan_time: Option<f64>,
    pub bytes: Option<f64>,
    /// Each MPI rank's seconds (from `rank_totals`; empty from one process)
    pub ranks: Vec<f64>,
}

/// The run as the profile tells it: the total (seconds, summed over ranks
/// when merged from several) and the number of ranks merged.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Run {
    pub total: f64,
    pub nranks: u64,
    /// Each rank's total (empty from one process)
    pub rank_totals: Vec<f64>,
}

/// `rank_totals` of a node, in seconds (empty when absent).
fn rank_seconds(path: &str, node: &Value, name: &str) -> Result<Vec<f64>, String> {
    let Some(v) = node.get("rank_totals") else {
        return Ok(Vec::new());
    };
    let bad = || node_err(path, &format!("node '{name}' has a malformed rank_totals"));
    v.as_array()
        .ok_or_else(bad)?
        .iter()
        .map(|t| t.as_u64().map(|ns| ns as f64 / 1e9).ok_or_else(bad))
        .collect()
}

/// Adds `b` into `a` element by element (`a` grows to `b`'s length).
fn add_ranks(a: &mut Vec<f64>, b: &[f64]) {
    if a.len() < b.len() {
        a.resize(b.len(), 0.0);
    }
    for (x, y) in a.iter_mut().zip(b) {
        *x += y;
    }
}

fn node_err(path: &str, what: &str) -> String {
    format!("profile '{path}': {what}")
}

/// The run (root clock) and the loops, in the tree's order.
fn collect(path: &str, root: &Value) -> Result<(Run, Vec<Loop>), String> {
    let total = root["clock"]["total"].as_u64().ok_or_else(|| {
        node_err(
            path,
            "the root has no clock.total (not an op2-rs JSON profile)",
        )
    })?;
    let mut loops: Vec<Loop> = Vec::new();
    let mut todo = vec![root];
    while let Some(node) = todo.pop() {
        let name = node["name"]
            .as_str()
            .ok_or_else(|| node_err(path, "a node has no name"))?;
        let kids = node["children"]
            .as_array()
            .ok_or_else(|| node_err(path, &format!("node '{name}' has no children array")))?;
        todo.extend(kids.iter().rev());
        if node["type"].as_u64() != Some(1) {
            continue;
        }
        let t = node["clock"]["total"].as_u64();
        let n = node["clock"]["n"].as_u64();
        let (Some(t), Some(n)) = (t, n) else {
            return Err(node_err(
                path,
                &format!("loop '{name}' has no clock.total/clock.n"),
            ));
        };
        let ranks = rank_seconds(path, node, name)?;
        match loops.iter_mut().find(|l| l.name == name) {
            Some(l) => {
                l.time += t as f64 / 1e9;
                l.calls += n;
                add_ranks(&mut l.ranks, &ranks);
            }
            None => loops.push(Loop {
                name: name.to_string(),
                time: t as f64 / 1e9,
                calls: n,
                ranks,
                ..Loop::default()
            }),
        }
    }
    let run = Run {
        total: total as f64 / 1e9,
        nranks: root["num_ranks"].as_u64().unwrap_or(1).max(1),
        rank_totals: rank_seconds(path, root, "root")?,
    };
    Ok((run, loops))
}

/// Plan time and GB used per kernel name, summed over the CSV's rows.
fn read_csv(path: &str) -> Result<BTreeMap<String, (f64, f64)>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("timings '{path}': {e}"))?;
    let mut out: BTreeMap<String, (f64, f64)> = BTreeMap::new();
    for (i, line) in text.lines().enumerate().skip(1) {
        let cols: Vec<&str> = line.splitn(11, ',').collect();
        let num = |c: usize| cols.get(c).and_then(|s| s.trim().parse::<f64>().ok());
        let (Some(plan), Some(gb), Some(name)) = (num(6), num(8), cols.get(10)) else {
            return Err(format!(
                "timings '{path}': line {} is not rank,thread,nranks,nthreads,count,total time,plan time,mpi time,GB used,GB total,kernel name",
                i + 1
            ));
        };
        let e = out.entry(name.to_string()).or_default();
        e.0 += plan;
        e.1 += gb;
    }
    Ok(out)
}

/// Loops named `k/backend/kind` take the CSV row of kernel `k`.
fn attach(loops: &mut [Loop], csv: &BTreeMap<String, (f64, f64)>) {
    for l in loops {
        let base = l.name.split('/').next().unwrap_or(&l.name);
        if let Some(&(plan, gb)) = csv.get(&l.name).or_else(|| csv.get(base)) {
            l.plan_time = Some(plan);
            l.bytes = Some(gb * 1e9);
        }
    }
}

/// `&`, `<`, `>`, `"` escaped.
pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn secs(s: f64) -> String {
    if s >= 1.0 {
        format!("{s:.3} s")
    } else if s >= 1e-3 {
        format!("{:.3} ms", s * 1e3)
    } else {
        format!("{:.3} µs", s * 1e6)
    }
}

fn bytes(b: f64) -> String {
    if b >= 1e9 {
        format!("{:.3} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.3} MB", b / 1e6)
    } else {
        format!("{:.0} B", b)
    }
}

const STYLE: &str = "body{font-family:sans-serif;margin:2em;color:#222}\
table{border-collapse:collapse}td,th{padding:2px 8px;text-align:right;white-space:nowrap}\
td.name,th.name{text-align:left;font-family:monospace}tr:nth-child(even){background:#f4f4f4}\
rect.bar{fill:#3b7dd8}rect.track{fill:#e4e4e4}rect.rank{fill:#e08a2c}text.rank{font-size:8px;fill:#555}";

/// Bar width (pixels) of `t` when `longest` fills [`BAR`].
fn width(t: f64, longest: f64) -> f64 {
    if longest > 0.0 {
        BAR * t / longest
    } else {
        0.0
    }
}

/// Width of the bars.
const BAR: f64 = 300.0;

/// Height of one rank's bar and the gap below it.
const RANK_BAR: usize = 9;

/// Room left of every bar for the rank numbers, so that loop and rank bars
/// start at the same place.
const LABEL: f64 = 24.0;

/// One table row: name, bar, time, share, calls (and the CSV's columns).
/// Times merged from several ranks are shown as the mean per rank.
fn row(o: &mut String, l: &Loop, run: &Run, longest: f64, csv: bool) {
    let n = run.nranks as f64;
    let time = l.time / n;
    let share = if run.total > 0.0 {
        100.0 * l.time / run.total
    } else {
        0.0
    };
    let _ = write!(
        o,
        "<tr class=\"loop\"><td class=\"name\">{}</td><td><svg width=\"{w}\" height=\"14\" role=\"img\"><rect class=\"track\" x=\"{LABEL}\" width=\"{BAR}\" height=\"14\"/><rect class=\"bar\" x=\"{LABEL}\" width=\"{:.1}\" height=\"14\"/></svg></td><td class=\"time\">{}</td><td class=\"share\">{share:.1}%</td><td class=\"calls\">{}</td>",
        esc(&l.name),
        width(time, longest),
        secs(time),
        calls(l.calls, run.nranks),
        w = LABEL + BAR
    );
    if run.nranks > 1 {
        let _ = write!(o, "<td class=\"imbalance\">{}</td>", imbalance(&l.ranks));
    }
    if csv {
        let dash = || "&#8212;".to_string();
        let moved = l.bytes.map_or_else(dash, bytes);
        let bw = match l.bytes {
            Some(b) if l.time > 0.0 => format!("{:.2} GB/s", b / 1e9 / time),
            _ => dash(),
        };
        let plan = l.plan_time.map_or_else(dash, secs);
        let _ = write!(
            o,
            "<td class=\"bytes\">{moved}</td><td class=\"bandwidth\">{bw}</td><td class=\"plan\">{plan}</td>"
        );
    }
    o.push_str("</tr>\n");
    if !l.ranks.is_empty() {
        rank_row(o, l, longest);
    }
}

/// Calls per rank: the merged count over the number of ranks (every rank
/// runs every loop in an OP2 program), one decimal when not whole.
fn calls(n: u64, nranks: u64) -> String {
    if n.is_multiple_of(nranks.max(1)) {
        (n / nranks.max(1)).to_string()
    } else {
        format!("{:.1}", n as f64 / nranks as f64)
    }
}

/// Slowest rank over the mean of the ranks, e.g. `1.25`.
fn imbalance(ranks: &[f64]) -> String {
    let mean = ranks.iter().sum::<f64>() / ranks.len().max(1) as f64;
    let max = ranks.iter().copied().fold(0.0, f64::max);
    if mean > 0.0 {
        format!("{:.2}", max / mean)
    } else {
        "&#8212;".to_string()
    }
}

/// The row under a loop with one thin bar per MPI rank (same scale as the
/// loops' bars; each bar's title says the rank and its time).
fn rank_row(o: &mut String, l: &Loop, longest: f64) {
    let h = RANK_BAR * l.ranks.len();
    let _ = write!(
        o,
        "<tr class=\"ranks\"><td class=\"name\">per rank</td><td><svg width=\"{w}\" height=\"{h}\" role=\"img\">",
        w = LABEL + BAR
    );
    for (r, t) in l.ranks.iter().enumerate() {
        let y = r * RANK_BAR;
        let _ = write!(
            o,
            "<text class=\"rank\" x=\"0\" y=\"{}\">{r}</text><rect class=\"rank\" x=\"{LABEL}\" y=\"{y}\" width=\"{:.1}\" height=\"{}\"><title>rank {r}: {}</title></rect>",
            y + RANK_BAR - 2,
            width(*t, longest),
            RANK_BAR - 1,
            secs(*t)
        );
    }
    let lo = l.ranks.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = l.ranks.iter().copied().fold(0.0, f64::max);
    let _ = writeln!(
        o,
        "</svg></td><td class=\"rank-range\" colspan=\"3\">{} ranks: {} to {}</td></tr>",
        l.ranks.len(),
        secs(lo),
        secs(hi)
    );
}

/// The HTML page.
pub fn html(title: &str, run: &Run, loops: &[Loop], csv: bool) -> String {
    let mut o = String::new();
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>op2-rs profile: {t}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<h1>op2-rs profile: {t}</h1>\n",
        t = esc(title)
    );
    let n = run.nranks as f64;
    let in_loops: f64 = loops.iter().map(|l| l.time).sum::<f64>() / n;
    let _ = write!(
        o,
        "<p>Total run time {}; {} loops, {} in loops.",
        secs(run.total / n),
        loops.len(),
        secs(in_loops)
    );
    if run.nranks > 1 {
        let _ = write!(
            o,
            " {} MPI ranks: times and calls are the mean over ranks (imbalance: slowest rank over the mean); each loop's row below has one bar per rank.",
            run.nranks
        );
    }
    o.push_str("</p>\n<table class=\"loops\">\n<tr><th class=\"name\">loop</th><th>time (bar: longest loop = full width)</th><th>time</th><th>share of total</th><th>calls</th>");
    if run.nranks > 1 {
        o.push_str("<th>imbalance</th>");
    }
    if csv {
        o.push_str("<th>bytes moved</th><th>bandwidth</th><th>plan time</th>");
    }
    o.push_str("</tr>\n");
    let longest = loops
        .iter()
        .flat_map(|l| l.ranks.iter().copied().chain([l.time / n]))
        .fold(0.0, f64::max);
    for l in loops {
        row(&mut o, l, run, longest, csv);
    }
    o.push_str("</table>\n");
    if !csv {
        o.push_str(
            "<p>Bytes moved, bandwidth and plan time: give the timings CSV with --timings.</p>\n",
        );
    }
    o.push_str("</body>\n</html>\n");
    o
}

/// Run `op2rs report`.
pub fn run(profile: &str, timings: Option<&str>, output: &str) -> Result<bool, String> {
    let text = std::fs::read_to_string(profile).map_err(|e| format!("profile '{profile}': {e}"))?;
    let root: Value =
        serde_json::from_str(&text).map_err(|e| format!("profile '{profile}' is not JSON: {e}"))?;
    let (run, mut loops) = collect(profile, &root)?;
    if loops.is_empty() {
        return Err(format!(
            "profile '{profile}' has no loops (no node of type 1)"
        ));
    }
    if let Some(csv) = timings {
        attach(&mut loops, &read_csv(csv)?);
    }
    loops.sort_by(|a, b| b.time.total_cmp(&a.time));
    let page = html(profile, &run, &loops, timings.is_some());
    std::fs::write(output, page).map_err(|e| format!("cannot write '{output}': {e}"))?;
    println!(
        "wrote {output}: {} loops, total {}",
        loops.len(),
        secs(run.total / run.nranks as f64)
    );
    Ok(true)
}
