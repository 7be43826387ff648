/*
 * OP2's serial HDF5 API through libop2_hdf5: one mode per argv[1], run in a
 * scratch directory (tests/tests/hdf5.rs).
 *   write        declare sets, a map and one dat per OP2 type string, then
 *                op_dump_to_hdf5, op_write_const_hdf5 and every op_fetch_data_hdf5*
 *   read         read everything back with op_decl_*_hdf5 / op_get_const_hdf5
 *   fixture F    read F, written by hdf5_fixture.c straight through libhdf5
 *   convert      a double dataset read as float (notice + converted values)
 *   dimerr, sizeerr, nofile, notfile, badtype, nullmap: one OP2 error each
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "op_seq.h"
#include "op_hdf5.h"

#define NNODE 5
#define NCELL 3
#define DIM 2
#define NTYPES 17

static const char *types[NTYPES] = {
    "double", "double:soa", "double precision", "real(8)", "float", "float:soa",
    "real(4)", "real", "int", "int:soa", "int(4)", "integer", "integer(4)",
    "long", "long:soa", "long long", "long long:soa"};
static const char kinds[NTYPES + 1] = "ddddffffiiiiilllL";
static int pcell[NCELL * 3] = {0, 1, 2, 2, 3, 4, 4, 0, 1};
static int failures = 0;

static void check(int ok, const char *what) {
    printf("%s %s\n", ok ? "PASS" : "FAIL", what);
    if (!ok) failures++;
}

static int elem_size(char k) {
    switch (k) {
    case 'd': return (int)sizeof(double);
    case 'f': return (int)sizeof(float);
    case 'i': return (int)sizeof(int);
    case 'l': return (int)sizeof(long);
    default: return (int)sizeof(long long);
    }
}

/* value j (of n*dim) of a dat of kind k, seeded by s: v = s + 10*j (+0.5 for reals) */
static void fill(char k, int j, int s, char *dst) {
    double v = s + 10.0 * j;
    switch (k) {
    case 'd': { double x = v + 0.5; memcpy(dst, &x, sizeof x); break; }
    case 'f': { float x = (float)(v + 0.5); memcpy(dst, &x, sizeof x); break; }
    case 'i': { int x = (int)v; memcpy(dst, &x, sizeof x); break; }
    case 'l': { long x = (long)v; memcpy(dst, &x, sizeof x); break; }
    default: { long long x = (long long)v; memcpy(dst, &x, sizeof x); break; }
    }
}

static char *make(char k, int n, int s) {
    int sz = elem_size(k);
    char *buf = (char *)malloc((size_t)(n * sz));
    int j;
    for (j = 0; j < n; j++) fill(k, j, s, buf + j * sz);
    return buf;
}

static int same(char k, const char *got, int n, int s) {
    char *want = make(k, n, s);
    int ok = memcmp(got, want, (size_t)(n * elem_size(k))) == 0;
    free(want);
    return ok;
}

static int dat_holds(op_dat d, char k, int s) {
    int n = NNODE * DIM;
    char *buf;
    int ok;
    if (d == NULL) return 0;
    buf = (char *)malloc((size_t)(n * elem_size(k)));
    op_fetch_data_char(d, buf);
    ok = same(k, buf, n, s);
    free(buf);
    return ok;
}

static void name_of(char *dst, const char *prefix, int i) { sprintf(dst, "%s%d", prefix, i); }

static void mode_write(void) {
    op_set nodes = op_decl_set(NNODE, "nodes");
    op_set cells = op_decl_set(NCELL, "cells");
    op_dat dats[NTYPES];
    char *ptrs[NTYPES];
    char name[32];
    double *q = (double *)make('d', NNODE * DIM, 7);
    int i;
    op_decl_map(cells, nodes, 3, pcell, "pcell");
    for (i = 0; i < NTYPES; i++) {
        name_of(name, "t", i);
        ptrs[i] = make(kinds[i], NNODE * DIM, i);
        dats[i] = op_decl_dat_char(nodes, DIM, types[i], elem_size(kinds[i]), ptrs[i], name);
    }
    op_decl_dat(nodes, DIM, "double", q, "grp/sub/q");
    op_dump_to_hdf5("dump.h5");
    for (i = 0; i < NTYPES; i++) {
        char *c = make(kinds[i], 3, 100 + i);
        name_of(name, "c", i);
        op_write_const_hdf5(name, 3, types[i], c, "const.h5");
        free(c);
    }
    op_fetch_data_hdf5_file(dats[0], "fetch.h5");
    op_fetch_data_hdf5_file(dats[0], "fetch.h5"); /* overwrite in place */
    op_fetch_data_hdf5_file_path(dats[4], "fetch.h5", "deep/er/path");
    op_fetch_data_hdf5(dats[8], "fetch.h5", "plain");
    op_fetch_data_hdf5_file_ptr(ptrs[15], "fetch.h5");
    for (i = 0; i < NTYPES; i++) free(ptrs[i]);
    free(q);
    check(1, "write");
}

static void read_dats(op_set nodes) {
    char name[32];
    int i;
    op_dat q;
    for (i = 0; i < NTYPES; i++) {
        op_dat d;
        name_of(name, "t", i);
        d = op_decl_dat_hdf5(nodes, DIM, types[i], "dump.h5", name);
        if (!dat_holds(d, kinds[i], i)) {
            printf("type %s differs\n", types[i]);
            check(0, "dats");
            return;
        }
    }
    check(1, "dats");
    q = op_decl_dat_hdf5(nodes, DIM, "double", "dump.h5", "grp/sub/q");
    check(dat_holds(q, 'd', 7), "groups");
}

static void read_consts(void) {
    char name[32];
    char buf[3 * 8];
    int i;
    for (i = 0; i < NTYPES; i++) {
        name_of(name, "c", i);
        memset(buf, 0, sizeof buf);
        op_get_const_hdf5(name, 3, types[i], buf, "const.h5");
        if (!same(kinds[i], buf, 3, 100 + i)) {
            printf("constant of type %s differs\n", types[i]);
            check(0, "consts");
            return;
        }
    }
    check(1, "consts");
}

static void read_fetched(op_set nodes) {
    op_dat a = op_decl_dat_hdf5(nodes, DIM, "double", "fetch.h5", "t0");
    op_dat b = op_decl_dat_hdf5(nodes, DIM, "float", "fetch.h5", "deep/er/path");
    op_dat c = op_decl_dat_hdf5(nodes, DIM, "int", "fetch.h5", "plain");
    op_dat d = op_decl_dat_hdf5(nodes, DIM, "long long", "fetch.h5", "t15");
    check(dat_holds(a, 'd', 0) && dat_holds(b, 'f', 4) && dat_holds(c, 'i', 8) &&
              dat_holds(d, 'L', 15),
          "fetched");
}

static void mode_read(void) {
    op_set nodes = op_decl_set_hdf5("dump.h5", "nodes");
    op_set cells = op_decl_set_hdf5_infer_size("dump.h5", "cells", "pcell");
    op_map m;
    check(op_get_size(nodes) == NNODE && op_get_size(cells) == NCELL, "sets");
    m = op_decl_map_hdf5(cells, nodes, 3, "dump.h5", "pcell");
    check(m != NULL && memcmp(m->map, pcell, sizeof pcell) == 0, "map");
    read_dats(nodes);
    read_consts();
    read_fetched(nodes);
    check(op_decl_dat_hdf5(nodes, DIM, "double", "dump.h5", "nope") == NULL &&
              op_decl_map_hdf5(cells, nodes, 3, "dump.h5", "nomap") == NULL,
          "missing");
}

static void mode_fixture(const char *f) {
    op_set nodes = op_decl_set_hdf5(f, "nodes");
    op_set cells = op_decl_set_hdf5(f, "cells");
    op_map m = op_decl_map_hdf5(cells, nodes, 3, f, "pcell");
    op_map lm = op_decl_map_hdf5(cells, nodes, 3, f, "lmap");
    op_dat x = op_decl_dat_hdf5(nodes, DIM, "double", f, "x");
    op_dat q = op_decl_dat_hdf5(nodes, 1, "float", f, "grp/q");
    op_dat iv = op_decl_dat_hdf5(nodes, DIM, "int", f, "iv");
    double gam = 0;
    int qok = 1, j;
    float qv[NNODE];
    check(op_get_size(nodes) == NNODE && op_get_size(cells) == NCELL, "fixture sets");
    check(m != NULL && memcmp(m->map, pcell, sizeof pcell) == 0, "fixture map");
    check(lm != NULL && memcmp(lm->map, pcell, sizeof pcell) == 0, "fixture long map");
    check(dat_holds(x, 'd', 0) && dat_holds(iv, 'i', 3), "fixture dats");
    op_fetch_data_char(q, (char *)qv);
    for (j = 0; j < NNODE; j++) qok = qok && qv[j] == (float)j * 0.25f;
    check(qok, "fixture group dat");
    op_get_const_hdf5("gam", 1, "double", (char *)&gam, f);
    check(gam == 1.4, "fixture const");
}

static void mode_convert(void) {
    op_set nodes = op_decl_set_hdf5("dump.h5", "nodes");
    op_dat d = op_decl_dat_hdf5(nodes, DIM, "float", "dump.h5", "t0");
    op_dat e = op_decl_dat_hdf5(nodes, DIM, "double", "dump.h5", "t8");
    float f[NNODE * DIM];
    double g[NNODE * DIM];
    int ok = 1, j;
    op_fetch_data_char(d, (char *)f);
    op_fetch_data_char(e, (char *)g);
    for (j = 0; j < NNODE * DIM; j++)
        ok = ok && f[j] == (float)(10.0 * j + 0.5) && g[j] == 8.0 + 10.0 * j;
    check(ok, "convert");
}

static int mode_error(const char *mode) {
    op_set nodes;
    if (strcmp(mode, "nofile") == 0) {
        printf("BEFORE\n");
        fflush(stdout);
        op_decl_set_hdf5("missing.h5", "nodes");
        return 1;
    }
    if (strcmp(mode, "notfile") == 0) {
        FILE *t = fopen("text.h5", "w");
        fputs("not hdf5\n", t);
        fclose(t);
        printf("BEFORE\n");
        op_decl_set_hdf5("text.h5", "nodes");
        return 1;
    }
    nodes = op_decl_set_hdf5("dump.h5", "nodes");
    printf("BEFORE\n");
    if (strcmp(mode, "dimerr") == 0) op_decl_dat_hdf5(nodes, 3, "double", "dump.h5", "t0");
    if (strcmp(mode, "badtype") == 0) op_decl_dat_hdf5(nodes, DIM, "bool", "dump.h5", "t0");
    if (strcmp(mode, "sizeerr") == 0) {
        op_set few = op_decl_set(NCELL + 1, "few");
        op_decl_map_hdf5(few, nodes, 3, "dump.h5", "pcell");
    }
    if (strcmp(mode, "nullmap") == 0) op_fetch_data_hdf5_file(NULL, "x.h5");
    return 0;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    const char *diags = getenv("HDF5_API_DIAGS"); /* progress lines from 2 */
    op_init(argc, argv, diags ? atoi(diags) : 1);
    if (strcmp(mode, "write") == 0) mode_write();
    else if (strcmp(mode, "read") == 0) mode_read();
    else if (strcmp(mode, "fixture") == 0 && argc > 2) mode_fixture(argv[2]);
    else if (strcmp(mode, "convert") == 0) mode_convert();
    else if (mode_error(mode)) printf("UNREACHABLE\n");
    else printf("UNREACHABLE\n");
    op_exit();
    return failures ? 1 : 0;
}
