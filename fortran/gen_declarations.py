#!/usr/bin/env python3
"""Write the type/rank variants of OP2_Fortran_Declarations.

op2_for_declarations.F90 is hand-written except for two regions,

    !GENERATED-BEGIN interfaces ... !GENERATED-END interfaces
    !GENERATED-BEGIN procedures ... !GENERATED-END procedures

which this script fills: the generic interfaces op_decl_dat, op_decl_const,
op_arg_dat, op_opt_arg_dat, op_arg_gbl, op_opt_arg_gbl, op_arg_info,
op_fetch_data, op_fetch_data_idx, op_decl_dat_overlay, op_reset_data_ptr
and one specific procedure per element type and array rank.

    python3 gen_declarations.py          # rewrite the regions in place
    python3 gen_declarations.py --check  # exit 1 if the file is out of date
"""

import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
TARGET = HERE / "op2_for_declarations.F90"

# key: (Fortran declaration type, type string given to C, bytes per element)
TYPES = {
    "i4": ("integer(4)", "integer(4)", "4_c_int"),
    "i8": ("integer(8)", "integer(8)", "8_c_int"),
    "r4": ("real(4)", "real(4)", "4_c_int"),
    "r8": ("real(8)", "real(8)", "8_c_int"),
    "l": ("logical", "logical", "int(storage_size(.true.) / 8, c_int)"),
}

DAT_TYPES = ["i4", "r4", "r8"]
DAT_RANKS = [1, 2, 3]
# map argument of the raw-array op_arg_dat forms
MAP_FORMS = {
    "m1": "integer(4), dimension(*), intent(in), target :: map",
    "m2": "integer(4), dimension(:, :), intent(in), target :: map",
    "mh": "type(op_map), intent(in) :: map",
}
GBL_TYPES = ["i4", "r4", "r8", "l"]
GBL_RANKS = [0, 1, 2, 3, 4]
INFO_RANKS = [0, 1, 2]
CONST_TYPES = ["i4", "i8", "r4", "r8"]
CONST_RANKS = [0, 1, 2]


def rank_attr(rank):
    """Dummy-array attribute: scalar, assumed size, or assumed shape."""
    if rank == 0:
        return ""
    if rank == 1:
        return ", dimension(*)"
    return ", dimension(" + ", ".join([":"] * rank) + ")"


def contiguity(rank, var, what):
    if rank < 2:
        return []
    return [f"    call op2_require_contiguous(is_contiguous({var}), '{what}')"]


def generic(name, specifics):
    lines = [f"  interface {name}"]
    for i, s in enumerate(specifics):
        lead = "    module procedure " if i == 0 else "                     "
        tail = ", &" if i < len(specifics) - 1 else ""
        lines.append(lead + s + tail)
    lines.append(f"  end interface {name}")
    lines.append("")
    return lines


def decl_dat(t, r):
    ftype, ctype, size = TYPES[t]
    name = f"op_decl_dat_{t}_{r}"
    body = [
        f"  subroutine {name}(set, dim, type, data, dat, name)",
        "    type(op_set), intent(in) :: set",
        "    integer(4), intent(in) :: dim",
        "    character(len=*), intent(in) :: type",
        f"    {ftype}{rank_attr(r)}, intent(in), target :: data",
        "    type(op_dat), intent(inout) :: dat",
        "    character(len=*), intent(in), optional :: name",
        f"    call op2_check_type(type, '{ctype}', 'op_decl_dat')",
        *contiguity(r, "data", "op_decl_dat"),
        f"    dat%dataCptr = op_decl_dat_c(set%setCptr, int(dim, c_int), op2_c_string('{ctype}'), {size}, &",
        "                                 c_loc(data), op2_c_name('unnamed', name))",
        "    call c_f_pointer(dat%dataCptr, dat%dataPtr)",
        f"  end subroutine {name}",
        "",
    ]
    return name, body


def decl_const(t, r):
    ftype, ctype, size = TYPES[t]
    name = f"op_decl_const_{t}_{r}"
    body = [
        f"  subroutine {name}(data, dim, name)",
        f"    {ftype}{rank_attr(r)}, intent(in), target :: data",
        "    integer(4), intent(in) :: dim",
        "    character(len=*), intent(in), optional :: name",
        *contiguity(r, "data", "op_decl_const"),
        f"    call op_decl_const_c(int(dim, c_int), op2_c_string('{ctype}'), {size}, c_loc(data), &",
        "                         op2_c_name('unnamed', name))",
        f"  end subroutine {name}",
        "",
    ]
    return name, body


def decl_const_string():
    name = "op_decl_const_string"
    body = [
        "  ! character constants: nothing to check or copy",
        f"  subroutine {name}(data, dim, name)",
        "    character(len=*), intent(in) :: data",
        "    integer(4), intent(in) :: dim",
        "    character(len=*), intent(in), optional :: name",
        "    if (len(data) < 0 .and. dim < 0 .and. present(name)) continue",
        f"  end subroutine {name}",
        "",
    ]
    return name, body


def arg_dat(t, r, m, opt):
    ftype, ctype, _ = TYPES[t]
    what = "op_opt_arg_dat" if opt else "op_arg_dat"
    name = f"{what}_{t}_{r}_{m}"
    args = "opt, data, idx, map, dim, type, access" if opt else "data, idx, map, dim, type, access"
    flag = "opt" if opt else ".true."
    body = [f"  type(op_arg) function {name}({args})"]
    if opt:
        body.append("    logical, intent(in) :: opt")
    body += [
        f"    {ftype}{rank_attr(r)}, intent(in), target :: data",
        "    integer(c_int), intent(in) :: idx",
        "    " + MAP_FORMS[m],
        "    integer(c_int), intent(in) :: dim",
        "    character(len=*), intent(in) :: type",
        "    integer(c_int), intent(in) :: access",
        f"    call op2_check_type(type, '{ctype}', '{what}')",
        *contiguity(r, "data", what),
    ]
    if m == "m2":
        body += contiguity(2, "map", what)
    if m == "mh":
        body.append(f"    {name} = op2_arg_dat_addr_map({flag}, c_loc(data), idx, map, dim, '{ctype}', access)")
    else:
        body.append(f"    {name} = op2_arg_dat_addr_array({flag}, c_loc(data), idx, c_loc(map), dim, '{ctype}', &")
        body.append("                                     access)")
    body += [f"  end function {name}", ""]
    return name, body


def arg_gbl(t, r, opt):
    ftype, ctype, size = TYPES[t]
    what = "op_opt_arg_gbl" if opt else "op_arg_gbl"
    name = f"{what}_{t}_{r}"
    args = "opt, data, dim, type, access" if opt else "data, dim, type, access"
    body = [f"  type(op_arg) function {name}({args})"]
    if opt:
        body.append("    logical, intent(in) :: opt")
    body += [
        f"    {ftype}{rank_attr(r)}, intent(in), target :: data",
        "    integer(c_int), intent(in) :: dim",
        "    character(len=*), intent(in) :: type",
        "    integer(c_int), intent(in) :: access",
        f"    call op2_check_type(type, '{ctype}', '{what}')",
        *contiguity(r, "data", what),
    ]
    if opt:
        body.append(f"    {name} = op_opt_arg_gbl_c(op2_c_flag(opt), c_loc(data), dim, op2_c_string('{ctype}'), &")
    else:
        body.append(f"    {name} = op_arg_gbl_c(c_loc(data), dim, op2_c_string('{ctype}'), &")
    body.append(f"                                 {size}, access - 1)")
    body += [f"  end function {name}", ""]
    return name, body


def arg_info(t, r):
    ftype, ctype, size = TYPES[t]
    name = f"op_arg_info_{t}_{r}"
    body = [
        f"  type(op_arg) function {name}(data, dim, type, ref)",
        f"    {ftype}{rank_attr(r)}, intent(in), target :: data",
        "    integer(c_int), intent(in) :: dim",
        "    character(len=*), intent(in) :: type",
        "    integer(c_int), intent(in) :: ref",
        f"    call op2_check_type(type, '{ctype}', 'op_arg_info')",
        *contiguity(r, "data", "op_arg_info"),
        f"    {name} = op_arg_info_c(c_loc(data), dim, op2_c_string('{ctype}'), {size}, ref - 1)",
        f"  end function {name}",
        "",
    ]
    return name, body


def fetch(t, r, idx):
    ftype, _, _ = TYPES[t]
    what = "op_fetch_data_idx" if idx else "op_fetch_data"
    name = f"{what}_{t}_{r}"
    args = "dat, data, low, high" if idx else "dat, data"
    body = [
        f"  subroutine {name}({args})",
        "    type(op_dat), intent(in) :: dat",
        f"    {ftype}{rank_attr(r)}, intent(inout), target :: data",
    ]
    if idx:
        body += [
            "    integer(4), intent(in) :: low",
            "    integer(4), intent(in) :: high",
        ]
    body += contiguity(r, "data", what)
    if idx:
        body.append("    call op_fetch_data_idx_c(dat%dataCptr, c_loc(data), int(low - 1, c_int), int(high - 1, c_int))")
    else:
        body.append("    call op_fetch_data_c(dat%dataCptr, c_loc(data))")
    body += [f"  end subroutine {name}", ""]
    return name, body


def decl_overlay(t, r):
    ftype, _, _ = TYPES[t]
    name = f"op_decl_dat_overlay_{t}_{r}"
    body = [
        "  ! OP2: the overlay's number (its index), by which op_get_data_ptr finds it",
        f"  integer(8) function {name}(set, data)",
        "    type(op_set), intent(in) :: set",
        f"    {ftype}{rank_attr(r)}, intent(in), target :: data",
        "    type(op_dat) :: overlay",
        *contiguity(r, "data", "op_decl_dat_overlay"),
        "    overlay%dataCptr = op_decl_dat_overlay_ptr_c(set%setCptr, c_loc(data))",
        "    call c_f_pointer(overlay%dataCptr, overlay%dataPtr)",
        f"    {name} = int(overlay%dataPtr%index, 8)",
        f"  end function {name}",
        "",
    ]
    return name, body


def reset_data_ptr(t, r):
    ftype, _, _ = TYPES[t]
    name = f"op_reset_data_ptr_{t}_{r}"
    body = [
        f"  integer(8) function {name}(data, mode)",
        f"    {ftype}{rank_attr(r)}, intent(in), target :: data",
        "    integer(c_int), value :: mode",
        *contiguity(r, "data", "op_reset_data_ptr"),
        f"    {name} = op_reset_data_ptr_c(c_loc(data), mode)",
        f"  end function {name}",
        "",
    ]
    return name, body


def build():
    interfaces = []
    procedures = []

    def family(generic_name, items, extra_specifics=()):
        names = list(extra_specifics)
        for name, body in items:
            names.append(name)
            procedures.extend(body)
        interfaces.extend(generic(generic_name, names))

    family("op_decl_dat", [decl_dat(t, r) for t in DAT_TYPES for r in DAT_RANKS])
    family(
        "op_decl_const",
        [decl_const(t, r) for t in CONST_TYPES for r in CONST_RANKS]
        + [decl_const("l", 0), decl_const_string()],
    )
    family(
        "op_arg_dat",
        [arg_dat(t, r, m, False) for t in DAT_TYPES for r in DAT_RANKS for m in MAP_FORMS],
        ["op_arg_dat_python"],
    )
    family(
        "op_opt_arg_dat",
        [arg_dat(t, r, m, True) for t in DAT_TYPES for r in DAT_RANKS for m in MAP_FORMS],
        ["op_opt_arg_dat_python"],
    )
    family("op_arg_gbl", [arg_gbl(t, r, False) for t in GBL_TYPES for r in GBL_RANKS])
    family("op_opt_arg_gbl", [arg_gbl(t, r, True) for t in GBL_TYPES for r in GBL_RANKS])
    family("op_arg_info", [arg_info(t, r) for t in GBL_TYPES for r in INFO_RANKS])
    family("op_fetch_data", [fetch(t, r, False) for t in DAT_TYPES for r in DAT_RANKS])
    family("op_fetch_data_idx", [fetch(t, r, True) for t in DAT_TYPES for r in DAT_RANKS])
    family("op_decl_dat_overlay", [decl_overlay(t, r) for t in DAT_TYPES for r in DAT_RANKS])
    family("op_reset_data_ptr", [reset_data_ptr(t, r) for t in DAT_TYPES for r in DAT_RANKS])
    return interfaces, procedures


def splice(text, region, lines):
    pattern = re.compile(
        rf"(^!GENERATED-BEGIN {region}\n).*?(^!GENERATED-END {region}\n)",
        re.S | re.M,
    )
    if not pattern.search(text):
        sys.exit(f"{TARGET.name}: markers for region '{region}' not found")
    block = "\n".join(lines).rstrip("\n") + "\n"
    return pattern.sub(lambda m: m.group(1) + block + m.group(2), text, count=1)


def main():
    interfaces, procedures = build()
    old = TARGET.read_text()
    new = splice(old, "interfaces", interfaces)
    new = splice(new, "procedures", procedures)
    if "--check" in sys.argv[1:]:
        if new != old:
            print(f"{TARGET.name} is out of date: run gen_declarations.py")
            return 1
        return 0
    if new != old:
        TARGET.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
