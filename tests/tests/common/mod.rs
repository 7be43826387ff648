//! Assertions shared by the integration tests (each test file includes this
//! module; not every file uses every helper).
#![allow(dead_code)]

use op2_tests::Run;

/// The program stopped with one OP2 usage error: exit status 1 and exactly one
/// line on stderr, `OP2 error in <call> (<object>): ...` (`OP2 error in
/// <call>: ...` when `object` is None) containing `phrase`. The test programs
/// print `BEFORE` just before the bad call, `UNREACHABLE` after it and
/// `KERNEL RAN` from kernels: the first must appear (stdout written before the
/// error is not lost), the others must not (nothing ran after the error).
pub fn assert_op2_error(r: &Run, call: &str, object: Option<&str>, phrase: &str) {
    let ctx = format!("stdout:\n{}\nstderr:\n{}", r.stdout, r.stderr);
    assert_eq!(r.status, Some(1), "exit status\n{ctx}");
    let lines: Vec<&str> = r.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "expected one error line\n{ctx}");
    let prefix = match object {
        Some(o) => format!("OP2 error in {call} ({o}): "),
        None => format!("OP2 error in {call}: "),
    };
    assert!(
        lines[0].starts_with(&prefix),
        "expected the line to start with {prefix:?}\n{ctx}"
    );
    assert!(
        lines[0][prefix.len()..].contains(phrase),
        "expected {phrase:?} in the message\n{ctx}"
    );
    assert!(r.stdout.contains("BEFORE"), "BEFORE missing\n{ctx}");
    assert!(
        !r.stdout.contains("UNREACHABLE"),
        "ran past the error\n{ctx}"
    );
    assert!(!r.stdout.contains("KERNEL RAN"), "a kernel ran\n{ctx}");
}

/// Names of the `PASS <name>` / `FAIL <name>` lines a check program printed.
pub fn results(r: &Run) -> (Vec<String>, Vec<String>) {
    let mut pass = Vec::new();
    let mut fail = Vec::new();
    for l in r.stdout.lines() {
        if let Some(n) = l.strip_prefix("PASS ") {
            pass.push(n.trim().to_string());
        } else if let Some(n) = l.strip_prefix("FAIL ") {
            fail.push(n.trim().to_string());
        }
    }
    (pass, fail)
}

/// Exit status 0, no FAIL line, and exactly the `expected` PASS lines.
pub fn assert_all_pass(r: &Run, expected: &[&str]) {
    let ctx = format!("stdout:\n{}\nstderr:\n{}", r.stdout, r.stderr);
    let (pass, fail) = results(r);
    assert!(fail.is_empty(), "failed checks {fail:?}\n{ctx}");
    let missing: Vec<&&str> = expected
        .iter()
        .filter(|e| !pass.iter().any(|p| p == **e))
        .collect();
    assert!(missing.is_empty(), "no PASS line for {missing:?}\n{ctx}");
    let unknown: Vec<&String> = pass
        .iter()
        .filter(|p| !expected.contains(&p.as_str()))
        .collect();
    assert!(
        unknown.is_empty(),
        "checks the test does not list: {unknown:?}"
    );
    assert_eq!(r.status, Some(0), "exit status\n{ctx}");
}
