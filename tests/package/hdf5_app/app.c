/* Write a dat with op_fetch_data_hdf5_file, read it back with the set
   through op_decl_set_hdf5 / op_decl_dat_hdf5; prints PASSED. */
#include <stdio.h>
#include "op_seq.h"
#include "op_hdf5.h"

int main(int argc, char **argv) {
    double x[6] = {1.5, 2.5, 3.5, 4.5, 5.5, 6.5}, y[6] = {0};
    op_set s;
    op_dat d, e;
    int i, ok = 1;
    op_init(argc, argv, 0);
    s = op_decl_set(3, "pts");
    d = op_decl_dat(s, 2, "double", x, "x");
    remove("app.h5");
    op_dump_to_hdf5("app.h5");
    e = op_decl_dat_hdf5(op_decl_set_hdf5("app.h5", "pts"), 2, "double", "app.h5", "x");
    op_fetch_data_char(e, (char *)y);
    for (i = 0; i < 6; i++) ok = ok && y[i] == x[i];
    (void)d;
    printf("%s\n", ok ? "PASSED" : "FAILED");
    op_exit();
    return ok ? 0 : 1;
}
