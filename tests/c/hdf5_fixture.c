/*
 * OP2's HDF5 layout straight through libhdf5 (no OP2 library), for
 * tests/tests/hdf5.rs:
 *   write F   write F as OP2 does: set sizes, a map whose 10-byte type string
 *             has junk after its NUL, a 64-bit map, dats (one in a group), a constant
 *   check F   read F (written by op2-rs's hdf5_api "write") the way OP2's readers
 *             do and check every dataset and attribute form; PASS/FAIL lines
 */
#include <hdf5.h>
#include <stdio.h>
#include <string.h>

static int failures = 0;

static void check(int ok, const char *what) {
    printf("%s %s\n", ok ? "PASS" : "FAIL", what);
    if (!ok) failures++;
}

static void int_attr(hid_t d, const char *name, int v) {
    hsize_t one = 1;
    hid_t s = H5Screate_simple(1, &one, NULL);
    hid_t a = H5Acreate2(d, name, H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, H5T_NATIVE_INT, &v);
    H5Aclose(a);
    H5Sclose(s);
}

/* a scalar fixed string attribute of `size` bytes written from `bytes` */
static void str_attr(hid_t d, const char *name, const char *bytes, size_t size) {
    hid_t s = H5Screate(H5S_SCALAR);
    hid_t t = H5Tcopy(H5T_C_S1);
    hid_t a;
    H5Tset_size(t, size);
    a = H5Acreate2(d, name, t, s, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(a, t, bytes);
    H5Aclose(a);
    H5Tclose(t);
    H5Sclose(s);
}

static hid_t dataset(hid_t f, const char *name, hid_t type, int rank, hsize_t r, hsize_t c,
                     const void *data) {
    hsize_t dims[2];
    hid_t s, d;
    dims[0] = r;
    dims[1] = c;
    s = H5Screate_simple(rank, dims, NULL);
    d = H5Dcreate2(f, name, type, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
    H5Sclose(s);
    return d;
}

static void write_file(const char *path) {
    hid_t f = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    int nodes = 5, cells = 3, j;
    int pcell[9] = {0, 1, 2, 2, 3, 4, 4, 0, 1};
    long long lmap[9];
    double x[10], gam = 1.4;
    float q[5];
    int iv[10];
    hid_t d, g;
    for (j = 0; j < 9; j++) lmap[j] = pcell[j];
    for (j = 0; j < 10; j++) {
        x[j] = 10.0 * j + 0.5;
        iv[j] = 3 + 10 * j;
    }
    for (j = 0; j < 5; j++) q[j] = (float)j * 0.25f;
    H5Dclose(dataset(f, "nodes", H5T_NATIVE_INT, 1, 1, 0, &nodes));
    H5Dclose(dataset(f, "cells", H5T_NATIVE_INT, 1, 1, 0, &cells));
    d = dataset(f, "pcell", H5T_NATIVE_INT, 2, 3, 3, pcell);
    int_attr(d, "size", 3);
    int_attr(d, "dim", 3);
    str_attr(d, "type", "int\0type\0p", 10); /* OP2 leaves junk after the NUL */
    H5Dclose(d);
    d = dataset(f, "lmap", H5T_NATIVE_LLONG, 2, 3, 3, lmap);
    int_attr(d, "size", 3);
    int_attr(d, "dim", 3);
    str_attr(d, "type", "long\0\x7f\x01xyz", 10);
    H5Dclose(d);
    d = dataset(f, "x", H5T_NATIVE_DOUBLE, 2, 5, 2, x);
    int_attr(d, "size", 16);
    int_attr(d, "dim", 2);
    str_attr(d, "type", "double", 6);
    H5Dclose(d);
    d = dataset(f, "iv", H5T_NATIVE_INT, 2, 5, 2, iv);
    int_attr(d, "size", 8);
    int_attr(d, "dim", 2);
    str_attr(d, "type", "int", 3);
    H5Dclose(d);
    g = H5Gcreate2(f, "/grp", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Gclose(g);
    d = dataset(f, "grp/q", H5T_NATIVE_FLOAT, 2, 5, 1, q);
    int_attr(d, "size", 4);
    int_attr(d, "dim", 1);
    str_attr(d, "type", "float", 5);
    H5Dclose(d);
    d = dataset(f, "gam", H5T_NATIVE_DOUBLE, 1, 1, 0, &gam);
    int_attr(d, "dim", 1);
    str_attr(d, "type", "double", 6);
    H5Dclose(d);
    H5Fclose(f);
}

static int read_int_attr(hid_t d, const char *name) {
    int v = -1;
    hid_t a = H5Aopen(d, name, H5P_DEFAULT);
    hid_t s = H5Aget_space(a);
    hid_t t = H5Aget_type(a);
    int ok = H5Tget_class(t) == H5T_INTEGER && H5Tget_size(t) == 4 &&
             H5Sget_simple_extent_ndims(s) == 1 && H5Sget_simple_extent_npoints(s) == 1;
    H5Aread(a, H5T_NATIVE_INT, &v);
    H5Tclose(t);
    H5Sclose(s);
    H5Aclose(a);
    return ok ? v : -1;
}

/* OP2's way: a memory string of the stored size + 1, NULLTERM; also checks the
   stored type is a scalar NULLTERM ASCII C string of `size` bytes */
static int type_attr_is(hid_t d, const char *want, size_t size) {
    char buf[64];
    hid_t a = H5Aopen(d, "type", H5P_DEFAULT);
    hid_t ft = H5Aget_type(a), s = H5Aget_space(a);
    hid_t mt = H5Tcopy(H5T_C_S1);
    size_t n = (size_t)H5Aget_storage_size(a);
    int ok = H5Tget_class(ft) == H5T_STRING && H5Tget_size(ft) == size &&
             H5Tget_strpad(ft) == H5T_STR_NULLTERM && H5Tget_cset(ft) == H5T_CSET_ASCII &&
             !H5Tis_variable_str(ft) && H5Sget_simple_extent_type(s) == H5S_SCALAR &&
             n < sizeof buf;
    H5Tset_size(mt, n + 1);
    memset(buf, 'X', sizeof buf);
    H5Aread(a, mt, buf);
    ok = ok && strcmp(buf, want) == 0;
    H5Tclose(mt);
    H5Tclose(ft);
    H5Sclose(s);
    H5Aclose(a);
    return ok;
}

static int shape_is(hid_t d, int rank, hsize_t r, hsize_t c, hid_t native) {
    hsize_t dims[2] = {0, 0};
    hid_t s = H5Dget_space(d), t = H5Dget_type(d);
    int ok = H5Sget_simple_extent_ndims(s) == rank;
    H5Sget_simple_extent_dims(s, dims, NULL);
    ok = ok && dims[0] == r && (rank == 1 || dims[1] == c) && H5Tequal(t, native) > 0;
    H5Tclose(t);
    H5Sclose(s);
    return ok;
}

static void check_file(const char *path) {
    hid_t f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
    hid_t d;
    int n = 0, pc[9], j, ok;
    double q[10];
    d = H5Dopen2(f, "nodes", H5P_DEFAULT);
    H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, &n);
    check(n == 5 && shape_is(d, 1, 1, 0, H5T_NATIVE_INT) && H5Aexists(d, "size") == 0 && H5Aexists(d, "type") == 0, "set");
    H5Dclose(d);
    d = H5Dopen2(f, "pcell", H5P_DEFAULT);
    H5Dread(d, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, pc);
    check(shape_is(d, 2, 3, 3, H5T_NATIVE_INT) && pc[4] == 3 && read_int_attr(d, "size") == 3 &&
              read_int_attr(d, "dim") == 3 && type_attr_is(d, "int", 10),
          "map");
    H5Dclose(d);
    d = H5Dopen2(f, "t1", H5P_DEFAULT);
    check(shape_is(d, 2, 5, 2, H5T_NATIVE_DOUBLE) && read_int_attr(d, "size") == 16 &&
              read_int_attr(d, "dim") == 2 && type_attr_is(d, "double:soa", 10),
          "dat");
    H5Dclose(d);
    d = H5Dopen2(f, "t16", H5P_DEFAULT);
    check(shape_is(d, 2, 5, 2, H5T_NATIVE_LLONG) && read_int_attr(d, "size") == 16 &&
              type_attr_is(d, "long long:soa", 13),
          "long long dat");
    H5Dclose(d);
    d = H5Dopen2(f, "t7", H5P_DEFAULT);
    check(shape_is(d, 2, 5, 2, H5T_NATIVE_FLOAT) && read_int_attr(d, "size") == 8 &&
              type_attr_is(d, "real", 4),
          "real dat");
    H5Dclose(d);
    d = H5Dopen2(f, "/grp/sub/q", H5P_DEFAULT);
    H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, q);
    for (ok = 1, j = 0; j < 10; j++) ok = ok && q[j] == 7 + 10.0 * j + 0.5;
    check(ok && shape_is(d, 2, 5, 2, H5T_NATIVE_DOUBLE), "group dat");
    H5Dclose(d);
    H5Fclose(f);
    f = H5Fopen("const.h5", H5F_ACC_RDONLY, H5P_DEFAULT);
    d = H5Dopen2(f, "c7", H5P_DEFAULT);
    check(shape_is(d, 1, 3, 0, H5T_NATIVE_FLOAT) && read_int_attr(d, "dim") == 3 &&
              H5Aexists(d, "size") == 0 && type_attr_is(d, "floa", 4),
          "const");
    H5Dclose(d);
    H5Fclose(f);
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "write") == 0) write_file(argv[2]);
    else if (argc == 3 && strcmp(argv[1], "check") == 0) check_file(argv[2]);
    else {
        fprintf(stderr, "usage: hdf5_fixture write|check FILE\n");
        return 2;
    }
    return failures ? 1 : 0;
}
