//! The shape of the C-ABI crate and of op2-core, checked from their
//! sources: the modules of each form a layered graph (no import cycle),
//! features are looked at only in a few places (the composition root), every
//! exported symbol is written once, every exported function is one call of
//! the error boundary, the C ABI does not decide by the distribution's kind
//! or the presence of a device (the runtime does), and no backend depends
//! on the C ABI.

use op2_tests::root;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// A crate's top-level modules and their source text, by name: `src/<m>.rs`
/// and, for a module with submodules, every `.rs` file under `src/<m>/`
/// (concatenated). A submodule counts as its top-level module: the layering
/// is checked between top-level modules (`crate::dist::directory` is a use of
/// `dist`), and submodules of one module may use one another.
fn crate_modules(krate: &str) -> BTreeMap<String, String> {
    fn add_tree(dir: &Path, text: &mut String) {
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                add_tree(&p, text);
            } else if p.extension().is_some_and(|x| x == "rs") {
                text.push_str(&std::fs::read_to_string(&p).unwrap());
                text.push('\n');
            }
        }
    }
    let dir = root().join(krate).join("src");
    let mut out: BTreeMap<String, String> = BTreeMap::new();
    for e in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let p = e.unwrap().path();
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        let text = out.entry(name).or_default();
        if p.is_dir() {
            add_tree(&p, text);
        } else if p.extension().is_some_and(|x| x == "rs") {
            text.push_str(&std::fs::read_to_string(&p).unwrap());
            text.push('\n');
        }
    }
    out.retain(|_, text| !text.is_empty());
    out
}

fn capi_sources() -> BTreeMap<String, String> {
    crate_modules("capi")
}

/// Module -> the sibling modules its code names as `crate::<module>` (any
/// path below it counts as the module). Comment lines are left out: a doc
/// link is not a dependency.
fn import_graph(src: &BTreeMap<String, String>) -> BTreeMap<String, BTreeSet<String>> {
    let mut g = BTreeMap::new();
    for (m, text) in src.iter().filter(|(m, _)| *m != "lib") {
        let code: String = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        let text = &code;
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
fn core_modules_have_no_import_cycle() {
    let src = crate_modules("core");
    let g = import_graph(&src);
    assert!(g.len() > 15, "the parser found the modules: {g:?}");
    // Submodules count: dist's imports are in dist/*.rs, partition's in
    // partition/*.rs.
    assert!(
        g["dist"].contains("halo") && g["dist"].contains("renumber"),
        "the parser reads submodules: {:?}",
        g["dist"]
    );
    assert!(
        g["partition"].contains("graph"),
        "the parser reads submodules: {:?}",
        g["partition"]
    );
    if let Some(c) = find_cycle(&g) {
        panic!("import cycle among op2-core modules: {}", c.join(" -> "));
    }
    // The permutation helpers are a leaf that the model and the renumbering
    // share; the graphs depend on neither the partitioners nor their users.
    assert!(
        g["permute"].is_empty(),
        "permute imports {:?}",
        g["permute"]
    );
    assert!(g["renumber"].contains("permute") && g["domain"].contains("permute"));
    assert!(!g["domain"].contains("renumber"), "domain imports renumber");
    for user in ["partition", "renumber", "dist", "halo"] {
        assert!(!g["graph"].contains(user), "graph imports {user}");
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

/// The names of the functions an `exports!` table defines (each entry is
/// `name(params) -> ret = "call" => expr;`, expanded to one `c_api!`).
fn table_exports(text: &str) -> Vec<String> {
    op2_tests::export_table_lines(text)
        .into_iter()
        .filter_map(|l| match l {
            op2_tests::ExportLine::Entry(t) => Some(t.split('(').next().unwrap_or("").to_string()),
            op2_tests::ExportLine::Meta(_) => None,
        })
        .collect()
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
        for name in table_exports(text) {
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

/// The sources that define `extern "C"` functions of op2-rs libraries:
/// the C ABI, the HDF5 C API (its macro and the two libraries using it).
fn exporting_sources() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for dir in [
        "capi/src",
        "hdf5io/src",
        "hdf5mpi/src",
        "capi/libs/op2_hdf5/src",
    ] {
        for e in std::fs::read_dir(root().join(dir)).expect(dir) {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "rs") {
                let text = std::fs::read_to_string(&p).unwrap();
                out.push((p.display().to_string(), text));
            }
        }
    }
    // The Fortran loop entry points are generated by capi/build.rs.
    let build = std::fs::read_to_string(root().join("capi/build.rs")).unwrap();
    let template = build
        .replace("\\\"", "\"")
        .replace("\\n", " ")
        .replace('\\', " ")
        .replace("{n}", "N")
        .replace("{}", "X")
        .replace("{{", "{")
        .replace("}}", "}");
    out.push(("capi/build.rs".into(), template));
    out
}

/// The body of the function whose signature starts at byte `at`: the text
/// between its outermost braces (`None` for a declaration without a body).
fn body_at(text: &str, at: usize) -> Option<&str> {
    let rest = &text[at..];
    let open = rest.find(['{', ';'])?;
    if rest.as_bytes()[open] == b';' {
        return None;
    }
    let mut depth = 0usize;
    for (i, c) in rest[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&rest[open + 1..open + i]);
                }
            }
            _ => {}
        }
    }
    None
}

/// Is `body` exactly one call of the boundary (`c_api!(...)` or
/// `op2_core::boundary::enter(...)`), comments aside?
fn is_one_boundary_call(body: &str) -> bool {
    let code: String = body
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    let code = code.trim();
    let start = [
        "c_api!(",
        "op2_core::boundary::enter(",
        "$crate::op2_core::boundary::enter(",
    ]
    .iter()
    .find(|p| code.starts_with(*p));
    let Some(start) = start else {
        return false;
    };
    // The call's parentheses close at the very end.
    let mut depth = 0i32;
    for (i, c) in code.char_indices().skip(start.len() - 1) {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return code[i + 1..].trim().is_empty();
                }
            }
            _ => {}
        }
    }
    false
}

#[test]
fn every_export_goes_through_the_boundary() {
    let mut checked = 0;
    let mut bad = Vec::new();
    for (file, text) in exporting_sources() {
        for (at, _) in text.match_indices("extern \"C\" fn ") {
            let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
            // Definitions only: not types, parameters or declarations.
            let head = text[line_start..at].trim();
            if !["pub unsafe", "pub", "unsafe", ""].contains(&head) {
                continue;
            }
            let Some(body) = body_at(&text, at) else {
                continue;
            };
            let name: String = text[at + "extern \"C\" fn ".len()..]
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '{')
                .filter(|c| *c != '{')
                .collect();
            // op_printf is a naked tail-jump into printf (C-variadic): no
            // Rust code runs in it.
            if body.contains("naked_asm!") {
                continue;
            }
            checked += 1;
            if !is_one_boundary_call(body) {
                bad.push(format!("{file}: {name}"));
            }
        }
    }
    // Table entries (`exports!`) are one `c_api!` each by construction.
    checked += exporting_sources()
        .iter()
        .map(|(_, t)| table_exports(t).len())
        .sum::<usize>();
    assert!(
        checked > 180,
        "the parser found the exported functions ({checked})"
    );
    assert!(
        bad.is_empty(),
        "exported functions whose body is not one c_api!/boundary::enter call: {bad:?}"
    );
}

#[test]
fn the_boundary_check_sees_what_it_must() {
    assert!(is_one_boundary_call(" c_api!(\"x\", Ok(())) "));
    assert!(is_one_boundary_call(
        "\n // SAFETY: y\n c_api!(\"x\", { f(); g() })\n"
    ));
    assert!(!is_one_boundary_call(" f(); c_api!(\"x\", Ok(())) "));
    assert!(!is_one_boundary_call(" c_api!(\"x\", Ok(())); f() "));
    assert!(!is_one_boundary_call(" with_state(\"x\", |st| Ok(())) "));
}

#[test]
fn the_c_abi_asks_the_runtime_instead_of_branching() {
    let src = capi_sources();
    for (m, text) in &src {
        for needle in [
            "DistKind",
            ".kind()",
            "has_device",
            "device.is_some",
            "device.is_none",
        ] {
            assert!(
                !text.contains(needle),
                "capi/src/{m}.rs decides by `{needle}`: ask the runtime (op2_core::runtime) instead"
            );
        }
    }
}

/// Every Rust source of the workspace (not generated, not `target/`).
fn workspace_sources() -> Vec<(String, String)> {
    fn walk(dir: &std::path::Path, out: &mut Vec<(String, String)>) {
        for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
            let p = e.path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            if p.is_dir() && !["target", "fuzz", ".git"].contains(&name.as_str()) {
                walk(&p, out);
            } else if name.ends_with(".rs") && name != "build.rs" {
                out.push((
                    p.display().to_string(),
                    std::fs::read_to_string(&p).unwrap(),
                ));
            }
        }
    }
    let mut out = Vec::new();
    walk(&root(), &mut out);
    out
}

#[test]
fn every_unsafe_fn_says_when_it_is_safe_to_call() {
    let mut bad = Vec::new();
    let mut seen = 0;
    for (file, text) in workspace_sources() {
        let lines: Vec<&str> = text.lines().collect();
        // Open impl blocks: (indentation, is a trait impl).
        let mut impls: Vec<(usize, bool)> = Vec::new();
        for (i, l) in lines.iter().enumerate() {
            let t = l.trim_start();
            let indent = l.len() - t.len();
            if t.starts_with("impl") || t.starts_with("unsafe impl") {
                impls.push((indent, t.contains(" for ")));
            } else if t == "}" && impls.last().is_some_and(|&(k, _)| k == indent) {
                impls.pop();
            }
            let is_fn = t.contains("unsafe fn ") && !t.starts_with("//") && !t.contains("type ");
            // Methods of trait impls are documented on the trait.
            let in_trait_impl = impls.last().is_some_and(|&(k, tr)| tr && k < indent);
            if !is_fn || in_trait_impl {
                continue;
            }
            seen += 1;
            let docs = lines[..i]
                .iter()
                .rev()
                .skip_while(|p| p.trim_start().starts_with("#["))
                .take_while(|p| p.trim_start().starts_with("///"));
            if !docs.clone().any(|d| d.contains("# Safety")) {
                bad.push(format!("{file}:{}", i + 1));
            }
        }
    }
    assert!(seen > 60, "the parser found the unsafe functions ({seen})");
    assert!(
        bad.is_empty(),
        "unsafe fns without a `# Safety` section: {bad:?}"
    );
}

#[test]
fn backends_do_not_depend_on_the_c_abi() {
    for b in ["seq", "threads", "mpi", "cuda", "opencl"] {
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
