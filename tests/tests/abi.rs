//! `op2_arg_view` (include/op2_rs_generated.h, read by op_seq.h's C++
//! trampoline) has the layout of Rust's `ArgView`, and the kind and flag
//! constants have the same values: tests/c/abi.c prints what a C compiler
//! makes of the header.

use op2_core::invoke::{ArgView, ViewKind, VIEW_EXCLUSIVE, VIEW_LOCAL};
use op2_tests::{build_once, out_dir, run_in, Lang, Program};
use std::mem::{align_of, offset_of, size_of, size_of_val};

#[test]
fn arg_view_layout_matches_c() {
    let exe = build_once(&Program::new("abi", Lang::C11, &["tests/c/abi.c"]));
    let r = run_in(&exe, &[], &out_dir().join("runs").join("abi"), &[]);
    r.ok();
    let v = ArgView::NULL;
    let fields: [(&str, usize, usize); 9] = [
        ("data", offset_of!(ArgView, data), size_of_val(&v.data)),
        ("map", offset_of!(ArgView, map), size_of_val(&v.map)),
        (
            "map_dim",
            offset_of!(ArgView, map_dim),
            size_of_val(&v.map_dim),
        ),
        ("idx", offset_of!(ArgView, idx), size_of_val(&v.idx)),
        (
            "elem_bytes",
            offset_of!(ArgView, elem_bytes),
            size_of_val(&v.elem_bytes),
        ),
        ("kind", offset_of!(ArgView, kind), size_of_val(&v.kind)),
        (
            "map_slot",
            offset_of!(ArgView, map_slot),
            size_of_val(&v.map_slot),
        ),
        (
            "access",
            offset_of!(ArgView, access),
            size_of_val(&v.access),
        ),
        ("flags", offset_of!(ArgView, flags), size_of_val(&v.flags)),
    ];
    let mut want = vec![format!(
        "size {} align {}",
        size_of::<ArgView>(),
        align_of::<ArgView>()
    )];
    for (name, off, size) in fields {
        want.push(format!("offset {name} {off} {size}"));
    }
    for (name, k) in [
        ("DIRECT", ViewKind::Direct),
        ("INDIRECT", ViewKind::Indirect),
        ("VECTOR", ViewKind::Vector),
        ("GLOBAL", ViewKind::Global),
        ("IDX_DIRECT", ViewKind::IdxDirect),
        ("IDX_MAPPED", ViewKind::IdxMapped),
        ("NULL", ViewKind::Null),
    ] {
        want.push(format!("kind {name} {}", k as i32));
    }
    want.push(format!("flag LOCAL {VIEW_LOCAL}"));
    want.push(format!("flag EXCLUSIVE {VIEW_EXCLUSIVE}"));
    let got: Vec<&str> = r.stdout.lines().collect();
    assert_eq!(got, want, "C (left) and Rust (right) disagree");
}
