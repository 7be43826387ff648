#!/usr/bin/env python3
"""Write the type/rank variants of OP2_Fortran_Declarations and
OP2_Fortran_HDF5_Declarations.

op2_for_declarations.F90 and op2_for_hdf5_declarations.F90 are hand-written
except for two regions in each,

    !GENERATED-BEGIN interfaces ... !GENERATED-END interfaces
    !GENERATED-BEGIN procedures ... !GENERATED-END procedures

which this script fills with generic interfaces and one specific procedure
per element type and array rank: in op2_for_declarations.F90 op_decl_dat,
op_decl_const, op_arg_dat, op_opt_arg_dat, op_arg_gbl, op_opt_arg_gbl,
op_arg_info, op_fetch_data, op_fetch_data_idx, op_decl_dat_overlay,
op_reset_data_ptr; in op2_for_hdf5_declarations.F90 op_get_const_hdf5,
op_write_const_hdf5, op_fetch_data_hdf5_file2 and
op_fetch_data_hdf5_file_ptr.

    python3 gen_declarations.py          # rewrite the regions in place
    python3 gen_declarations.py --check  # exit 1 if a file is out of date
"""

import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
TARGET = HERE / "op2_for_declarations.F90"
HDF5_TARGET = HERE / "op2_for_hdf5_declarations.F90"

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

# OP2_Fortran_HDF5_Declarations: the C type name handed to
# op_get_const_hdf5/op_write_const_hdf5 per element type
HDF5_C_TYPES = {"i4": "int", "i8": "long long", "r4": "float", "r8": "double"}
HDF5_CONST_TYPES = ["i4", "i8", "r4", "r8"]
HDF5_CONST_RANKS = [0, 1, 2]
HDF5_FETCH_TYPES = ["i4", "r4", "r8"]
HDF5_FETCH_RANKS = [1, 2, 3]


def rank_attr(rank):
    """Dummy-array attribute: scalar, assumed size, or assumed shape."""
    if rank == 0:
        return ""
    if rank == 1:
        return ", dimension(*)"
    return ", dimension(" + ", ".join([":"] * rank) + ")"


def shape_attr(rank):
    """Dummy-array attribute: scalar or assumed shape."""
    if rank == 0:
        return ""
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


def hdf5_const(t, r, write):
    """op_get_const_hdf5_<t>_<r> / op_write_const_hdf5_<t>_<r>."""
    ftype, canonical, _ = TYPES[t]
    what = "op_write_const_hdf5" if write else "op_get_const_hdf5"
    name = f"{what}_{t}_{r}"
    intent = "in" if write else "inout"
    if r == 0:
        count, contiguous = "int(1, 8)", ".true."
    else:
        count, contiguous = "int(size(data), 8)", "is_contiguous(data)"
    check = "    call op2_hdf5_check_const("
    call = f"    call {what}_c("
    body = [
        f"  subroutine {name}(name, dim, type, data, file)",
        "    character(len=*), intent(in) :: name",
        "    integer(4), intent(in) :: dim",
        "    character(len=*), intent(in) :: type",
        f"    {ftype}{shape_attr(r)}, intent({intent}), target :: data",
        "    character(len=*), intent(in) :: file",
        f"{check}'{what}', name, dim, type, &",
        " " * len(check) + f"'{canonical}', {count}, {contiguous})",
        f"{call}op2_c_string(name), int(dim, c_int), op2_c_string('{HDF5_C_TYPES[t]}'), &",
        " " * len(call) + "c_loc(data), op2_c_string(file))",
        f"  end subroutine {name}",
        "",
    ]
    return name, body


def hdf5_fetch_file2(t, r):
    """op_fetch_data_hdf5_file2_<t>_<r> (also op_fetch_data_hdf5_file_ptr)."""
    ftype, _, _ = TYPES[t]
    name = f"op_fetch_data_hdf5_file2_{t}_{r}"
    body = [
        f"  subroutine {name}(data, file)",
        f"    {ftype}{shape_attr(r)}, intent(in), target :: data",
        "    character(len=*), intent(in) :: file",
        "    call op2_require_contiguous(is_contiguous(data), 'op_fetch_data_hdf5_file_ptr')",
        "    call op_fetch_data_hdf5_file_ptr_c(c_loc(data), op2_c_string(file))",
        f"  end subroutine {name}",
        "",
    ]
    return name, body


def build_hdf5():
    """The regions of op2_for_hdf5_declarations.F90."""
    consts = {
        write: [hdf5_const(t, r, write) for t in HDF5_CONST_TYPES for r in HDF5_CONST_RANKS]
        for write in (False, True)
    }
    fetches = [hdf5_fetch_file2(t, r) for t in HDF5_FETCH_TYPES for r in HDF5_FETCH_RANKS]
    interfaces = []
    interfaces += generic("op_get_const_hdf5", [n for n, _ in consts[False]])
    interfaces += generic("op_write_const_hdf5", [n for n, _ in consts[True]])
    # two generic names for the same procedures, as in OP2's module
    interfaces += generic("op_fetch_data_hdf5_file2", [n for n, _ in fetches])
    interfaces += generic("op_fetch_data_hdf5_file_ptr", [n for n, _ in fetches])
    procedures = []
    for _, body in consts[False] + consts[True]:
        procedures += body
    procedures += [
        "  ! op_fetch_data_hdf5_file2 / op_fetch_data_hdf5_file_ptr(array, file): the",
        "  ! dat declared with op_decl_dat on `array` (the same array, not a copy)",
        "",
    ]
    for _, body in fetches:
        procedures += body
    return interfaces, procedures


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


def splice(target, text, region, lines):
    pattern = re.compile(
        rf"(^!GENERATED-BEGIN {region}\n).*?(^!GENERATED-END {region}\n)",
        re.S | re.M,
    )
    if not pattern.search(text):
        sys.exit(f"{target.name}: markers for region '{region}' not found")
    block = "\n".join(lines).rstrip("\n") + "\n"
    return pattern.sub(lambda m: m.group(1) + block + m.group(2), text, count=1)


def main():
    check = "--check" in sys.argv[1:]
    status = 0
    for target, regions in ((TARGET, build), (HDF5_TARGET, build_hdf5)):
        interfaces, procedures = regions()
        old = target.read_text()
        new = splice(target, old, "interfaces", interfaces)
        new = splice(target, new, "procedures", procedures)
        if new == old:
            continue
        if check:
            print(f"{target.name} is out of date: run gen_declarations.py")
            status = 1
        else:
            target.write_text(new)
    return status


if __name__ == "__main__":
    sys.exit(main())
