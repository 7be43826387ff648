//! The shape of the C-ABI crate, checked from its sources: its modules form a
//! layered graph (no import cycle), features are looked at only in a few
//! places (the composition root), every exported symbol is written once, and
//! no backend depends on the C ABI.

use op2_tests::root;
use std::collections::{BTreeMap, BTreeSet};

fn capi_sources() -> BTreeMap<String, String> {
    let dir = root().join("capi/src");
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(&dir).expect("capi/src") {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "rs") {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            out.insert(name, std::fs::read_to_string(&p).unwrap());
        }
    }
    out
}

/// Module -> the sibling modules it names as `crate::<module>`.
fn import_graph(src: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let mut g = BTreeMap::new();
    for (m, text) in src.iter().filter(|(m, _)| *m != "lib") {
        let mut deps = BTreeSet::new();
        for (i, _) in text.match_indices("crate::") {
            let rest = &text[i + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if src.contains_key(&name) && &name != m {
                deps.insert(name);
            }
        }
        g.insert(m.clone(), deps);
    }
    g
}

fn find_cycle(g: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    // 0 unvisited, 1 on the stack, 2 done
    fn visit(
        n: &str,
        g: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(n.to_string(), 1);
        stack.push(n.to_string());
        for d in g.get(n).into_iter().flatten() {
            match state.get(d.as_str()).copied().unwrap_or(0) {
                1 => {
                    let at = stack.iter().position(|s| s == d).unwrap();
                    let mut c = stack[at..].to_vec();
                    c.push(d.clone());
                    return Some(c);
                }
                0 => {
                    if let Some(c) = visit(d, g, state, stack) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in g.keys() {
        if state.get(n.as_str()).copied().unwrap_or(0) == 0 {
            if let Some(c) = visit(n, g, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

#[test]
fn capi_modules_have_no_import_cycle() {
    let src = capi_sources();
    let g = import_graph(&src);
    assert!(g.len() > 10, "the parser found the modules: {g:?}");
    assert!(
        g["par_loop"].contains("state"),
        "the parser finds imports: {:?}",
        g["par_loop"]
    );
    if let Some(c) = find_cycle(&g) {
        panic!("import cycle among capi modules: {}", c.join(" -> "));
    }
}

#[test]
fn the_cycle_finder_finds_cycles() {
    let mut g = BTreeMap::new();
    g.insert("a".to_string(), BTreeSet::from(["b".to_string()]));
    g.insert("b".to_string(), BTreeSet::from(["c".to_string()]));
    g.insert("c".to_string(), BTreeSet::from(["a".to_string()]));
    assert_eq!(find_cycle(&g).unwrap(), vec!["a", "b", "c", "a"]);
    g.insert("c".to_string(), BTreeSet::new());
    assert!(find_cycle(&g).is_none());
}

#[test]
fn features_are_looked_at_in_few_places() {
    let src = capi_sources();
    let mut total = 0;
    let mut files = Vec::new();
    for (m, text) in &src {
        let n = text.matches("feature = \"").count();
        if n > 0 {
            files.push(format!("{m}: {n}"));
        }
        total += n;
    }
    assert!(
        total <= 10,
        "{total} `feature = \"...\"` conditions in capi/src (at most 10): {files:?}"
    );
}

#[test]
fn every_export_is_written_once() {
    let src = capi_sources();
    let mut seen: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (m, text) in &src {
        let lines: Vec<&str> = text.lines().collect();
        for (i, l) in lines.iter().enumerate() {
            if l.trim() != "#[no_mangle]" {
                continue;
            }
            // One definition per CPU architecture is one definition.
            if lines[i.saturating_sub(3)..i]
                .iter()
                .any(|p| p.contains("cfg(target_arch"))
            {
                continue;
            }
            let Some(decl) = lines.get(i + 1) else {
                continue;
            };
            let name = decl
                .split(['(', ':', '<'])
                .next()
                .and_then(|head| head.split_whitespace().last())
                .unwrap_or("")
                .to_string();
            seen.entry(name).or_default().push(m.clone());
        }
    }
    assert!(
        seen.len() > 150,
        "the parser found the exports ({})",
        seen.len()
    );
    let twice: Vec<_> = seen.iter().filter(|(_, v)| v.len() > 1).collect();
    assert!(
        twice.is_empty(),
        "exports written more than once: {twice:?}"
    );
}

#[test]
fn backends_do_not_depend_on_the_c_abi() {
    for b in ["seq", "threads", "mpi"] {
        let toml =
            std::fs::read_to_string(root().join(format!("backends/{b}/Cargo.toml"))).unwrap();
        for lib in ["libop2-seq", "libop2-openmp", "libop2-mpi", "capi"] {
            assert!(
                !toml.lines().any(|l| l.trim_start().starts_with(lib)),
                "backends/{b} depends on {lib}"
            );
        }
        let src = std::fs::read_to_string(root().join(format!("backends/{b}/src/lib.rs"))).unwrap();
        assert!(
            !src.contains("op2_seq::") && !src.contains("capi"),
            "backends/{b} reaches into the C ABI"
        );
    }
}
