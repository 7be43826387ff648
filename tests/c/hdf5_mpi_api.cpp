/* OP2's HDF5 API under MPI (libop2_mpi / libop2_mpi_cuda and a parallel
 * HDF5), one mode per argv[1], run in a scratch directory by
 * tests/tests/hdf5_mpi_api.rs:
 *   gen     (one process) write mesh.h5 in OP2's layout straight through
 *           libhdf5: sets nodes (N) and cells (C), map pcell, dats x, ids,
 *           grp/w, constants gam and ivec, all from known formulas
 *   api     every function: sets (block rule, inferred size), map and dats
 *           compared byte for byte with the same datasets read serially,
 *           missing datasets (NULL), constants read and written, then
 *           op_partition, op_dump_to_hdf5 (read back serially: global set
 *           sizes, maps and dats as held), op_fetch_data_hdf5_file /
 *           _file_path / _file_ptr / op_fetch_data_hdf5 into a new file, a
 *           new group path in it and an overwrite after a loop changed x
 *   dimerr  op_decl_dat_hdf5 with the wrong dim: one OP2 error, MPI_Abort
 *   ptrerr  op_fetch_data_hdf5_file_ptr with a pointer declared on rank 0
 *           only: the other ranks' error is printed (once) while rank 0
 *           waits in the collective fetch
 *   device  (libop2_mpi_cuda, OP2_RS_DEVICE=host) x written on the device
 *           after op_partition: op_dump_to_hdf5 and op_fetch_data_hdf5_file
 *           write the device's values
 * Checks are collective; rank 0 prints PASS/FAIL lines. */
#include <hdf5.h>

#include "op_hdf5.h"
#include "op_lib_mpi.h"
#include "op_seq.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

static const int N = 23, C = 17;
static int rank = 0, nproc = 1, failures = 0;

static double X(int i, int k) { return 100.0 * i + k + 0.25; }
static int PCELL(int c, int k) { return (5 * c + 7 * k) % N; }

static void check(bool ok, const char *name) {
  int all = ok ? 1 : 0, every = 0;
  MPI_Allreduce(&all, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0)
    std::printf("%s %s\n", every ? "PASS" : "FAIL", name);
  if (!every)
    failures++;
}

static int lo_of(int g) { return (int)((long)g * rank / nproc); }
static int hi_of(int g) { return (int)((long)g * (rank + 1) / nproc); }

/* ---- libhdf5 straight (OP2's layout, serial access) ---- */

static void int_attr(hid_t d, const char *name, int v) {
  hsize_t one = 1;
  hid_t s = H5Screate_simple(1, &one, NULL);
  hid_t a = H5Acreate2(d, name, H5T_NATIVE_INT, s, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(a, H5T_NATIVE_INT, &v);
  H5Aclose(a);
  H5Sclose(s);
}

static void str_attr(hid_t d, const char *name, const char *text) {
  hid_t s = H5Screate(H5S_SCALAR);
  hid_t t = H5Tcopy(H5T_C_S1);
  H5Tset_size(t, std::strlen(text));
  hid_t a = H5Acreate2(d, name, t, s, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(a, t, text);
  H5Aclose(a);
  H5Tclose(t);
  H5Sclose(s);
}

static hid_t dataset(hid_t f, const char *name, hid_t type, int rnk, hsize_t r, hsize_t c,
                     const void *data) {
  hsize_t dims[2] = {r, c};
  hid_t s = H5Screate_simple(rnk, dims, NULL);
  hid_t d = H5Dcreate2(f, name, type, s, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data);
  H5Sclose(s);
  return d;
}

static void gen() {
  std::vector<int> pcell(C * 3), ids(C);
  std::vector<double> x(N * 2);
  std::vector<float> w(C);
  for (int c = 0; c < C; c++) {
    for (int k = 0; k < 3; k++)
      pcell[c * 3 + k] = PCELL(c, k);
    ids[c] = 1000 + c;
    w[c] = 0.5f * (float)c;
  }
  for (int i = 0; i < N; i++)
    for (int k = 0; k < 2; k++)
      x[i * 2 + k] = X(i, k);
  double gam = 1.4;
  int ivec[3] = {7, 8, 9};
  hid_t f = H5Fcreate("mesh.h5", H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  H5Dclose(dataset(f, "nodes", H5T_NATIVE_INT, 1, 1, 0, &N));
  H5Dclose(dataset(f, "cells", H5T_NATIVE_INT, 1, 1, 0, &C));
  hid_t d = dataset(f, "pcell", H5T_NATIVE_INT, 2, C, 3, pcell.data());
  int_attr(d, "size", C);
  int_attr(d, "dim", 3);
  str_attr(d, "type", "int");
  H5Dclose(d);
  d = dataset(f, "x", H5T_NATIVE_DOUBLE, 2, N, 2, x.data());
  int_attr(d, "size", 16);
  int_attr(d, "dim", 2);
  str_attr(d, "type", "double");
  H5Dclose(d);
  d = dataset(f, "ids", H5T_NATIVE_INT, 2, C, 1, ids.data());
  int_attr(d, "size", 4);
  int_attr(d, "dim", 1);
  str_attr(d, "type", "int");
  H5Dclose(d);
  H5Gclose(H5Gcreate2(f, "/grp", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
  d = dataset(f, "grp/w", H5T_NATIVE_FLOAT, 2, C, 1, w.data());
  int_attr(d, "size", 4);
  int_attr(d, "dim", 1);
  str_attr(d, "type", "float");
  H5Dclose(d);
  d = dataset(f, "gam", H5T_NATIVE_DOUBLE, 1, 1, 0, &gam);
  int_attr(d, "dim", 1);
  str_attr(d, "type", "double");
  H5Dclose(d);
  d = dataset(f, "ivec", H5T_NATIVE_INT, 1, 3, 0, ivec);
  int_attr(d, "dim", 3);
  str_attr(d, "type", "int");
  H5Dclose(d);
  H5Fclose(f);
}

/* The whole dataset `name` of `file` as `mem` values (serial access, each
   rank on its own); empty when missing. */
template <class T> static std::vector<T> read_all(const char *file, const char *name, hid_t mem) {
  std::vector<T> out;
  hid_t f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
  if (f < 0)
    return out;
  if (H5Lexists(f, name, H5P_DEFAULT) > 0) {
    hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
    hid_t s = H5Dget_space(d);
    out.resize((size_t)H5Sget_simple_extent_npoints(s));
    H5Dread(d, mem, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data());
    H5Sclose(s);
    H5Dclose(d);
  }
  H5Fclose(f);
  return out;
}

static int int_attr_of(const char *file, const char *name, const char *attr) {
  int v = -1;
  hid_t f = H5Fopen(file, H5F_ACC_RDONLY, H5P_DEFAULT);
  hid_t d = H5Dopen2(f, name, H5P_DEFAULT);
  hid_t a = H5Aopen(d, attr, H5P_DEFAULT);
  H5Aread(a, H5T_NATIVE_INT, &v);
  H5Aclose(a);
  H5Dclose(d);
  H5Fclose(f);
  return v;
}

/* This rank's first row when each rank holds `local` rows in rank order. */
static int start_of(int local) {
  int s = 0;
  MPI_Exscan(&local, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  return rank == 0 ? 0 : s;
}

template <class T>
static bool block_is(const std::vector<T> &all, int row0, int rows, int dim, const void *held) {
  if (all.size() < (size_t)(row0 + rows) * dim)
    return false;
  return rows == 0 || std::memcmp(all.data() + (size_t)row0 * dim, held,
                                  sizeof(T) * (size_t)rows * dim) == 0;
}

static void twice(double *x) {
  x[0] = 2.0 * x[0] + 1.0;
  x[1] = 2.0 * x[1] + 1.0;
}

/* ---- api ---- */

static void check_reads(op_set nodes, op_set cells, op_set cells2, op_map pcell, op_dat x,
                        op_dat ids, op_dat w) {
  check(nodes->size == hi_of(N) - lo_of(N) && cells->size == hi_of(C) - lo_of(C) &&
            op_get_size(nodes) == N && op_get_size(cells) == C,
        "sets_block_rule");
  check(cells2->size == cells->size && op_get_size(cells2) == C, "set_infer_size");
  std::vector<int> m = read_all<int>("mesh.h5", "pcell", H5T_NATIVE_INT);
  check(pcell != NULL && block_is(m, lo_of(C), cells->size, 3, pcell->map), "map_block_bytes");
  std::vector<double> xs = read_all<double>("mesh.h5", "x", H5T_NATIVE_DOUBLE);
  check(x != NULL && block_is(xs, lo_of(N), nodes->size, 2, x->data), "dat_double_block_bytes");
  std::vector<int> is = read_all<int>("mesh.h5", "ids", H5T_NATIVE_INT);
  check(ids != NULL && block_is(is, lo_of(C), cells->size, 1, ids->data), "dat_int_block_bytes");
  std::vector<float> ws = read_all<float>("mesh.h5", "grp/w", H5T_NATIVE_FLOAT);
  check(w != NULL && block_is(ws, lo_of(C), cells->size, 1, w->data), "dat_in_group_block_bytes");
  bool known = m.size() == (size_t)C * 3 && xs.size() == (size_t)N * 2;
  for (int c = 0; known && c < C; c++)
    for (int k = 0; k < 3; k++)
      known = known && m[c * 3 + k] == PCELL(c, k);
  for (int i = 0; known && i < N; i++)
    known = known && xs[i * 2] == X(i, 0) && xs[i * 2 + 1] == X(i, 1);
  check(known, "serial_read_is_known_mesh");
}

static void check_consts() {
  double gam = 0.0;
  int ivec[3] = {0, 0, 0};
  op_get_const_hdf5("gam", 1, "double", (char *)&gam, "mesh.h5");
  op_get_const_hdf5("ivec", 3, "int", (char *)ivec, "mesh.h5");
  check(gam == 1.4 && ivec[0] == 7 && ivec[1] == 8 && ivec[2] == 9, "get_const");
  if (rank == 0)
    std::remove("consts.h5");
  MPI_Barrier(MPI_COMM_WORLD);
  double wc[2] = {2.5, -3.25};
  int wi[3] = {11, 12, 13};
  op_write_const_hdf5("wc", 2, "double", (char *)wc, "consts.h5"); /* new file */
  op_write_const_hdf5("grp/wi", 3, "int", (char *)wi, "consts.h5"); /* existing file */
  double rc[2] = {0, 0};
  int ri[3] = {0, 0, 0};
  op_get_const_hdf5("wc", 2, "double", (char *)rc, "consts.h5");
  op_get_const_hdf5("grp/wi", 3, "int", (char *)ri, "consts.h5");
  check(rc[0] == 2.5 && rc[1] == -3.25 && ri[0] == 11 && ri[1] == 12 && ri[2] == 13,
        "write_const_round_trip");
  std::vector<double> s = read_all<double>("consts.h5", "wc", H5T_NATIVE_DOUBLE);
  check(s.size() == 2 && s[0] == 2.5 && int_attr_of("consts.h5", "grp/wi", "dim") == 3,
        "write_const_serial_view");
}

/* The dump, read serially: global set sizes; each rank's owned rows of
   every map and dat as held, after the lower ranks' rows. */
static void check_dump(op_set nodes, op_set cells, op_map pcell, op_dat x, op_dat ids,
                       op_dat h) {
  MPI_Barrier(MPI_COMM_WORLD);
  std::vector<int> sn = read_all<int>("dump.h5", "nodes", H5T_NATIVE_INT);
  std::vector<int> sc = read_all<int>("dump.h5", "cells", H5T_NATIVE_INT);
  std::vector<int> sc2 = read_all<int>("dump.h5", "cells2", H5T_NATIVE_INT);
  check(sn.size() == 1 && sn[0] == N && sc.size() == 1 && sc[0] == C && sc2.size() == 1 &&
            sc2[0] == C,
        "dump_set_global_sizes");
  int n0 = start_of(nodes->size), c0 = start_of(cells->size);
  std::vector<int> m = read_all<int>("dump.h5", "pcell", H5T_NATIVE_INT);
  check(m.size() == (size_t)C * 3 && block_is(m, c0, cells->size, 3, pcell->map),
        "dump_map_as_held");
  std::vector<double> xs = read_all<double>("dump.h5", "x", H5T_NATIVE_DOUBLE);
  std::vector<int> is = read_all<int>("dump.h5", "ids", H5T_NATIVE_INT);
  std::vector<double> hs = read_all<double>("dump.h5", "h", H5T_NATIVE_DOUBLE);
  check(xs.size() == (size_t)N * 2 && block_is(xs, n0, nodes->size, 2, x->data) &&
            block_is(is, c0, cells->size, 1, ids->data) &&
            block_is(hs, n0, nodes->size, 1, h->data),
        "dump_dats_as_held");
  /* known answer: the dumped x rows are the mesh's rows, each once */
  std::vector<int> seen(N, 0);
  bool perm = xs.size() == (size_t)N * 2;
  for (int r = 0; perm && r < N; r++) {
    int i = (int)((xs[r * 2] - 0.25) / 100.0);
    perm = i >= 0 && i < N && xs[r * 2] == X(i, 0) && xs[r * 2 + 1] == X(i, 1) && !seen[i]++;
  }
  check(perm, "dump_x_rows_are_the_mesh_rows");
  check(int_attr_of("dump.h5", "x", "dim") == 2 && int_attr_of("dump.h5", "x", "size") == 16 &&
            int_attr_of("dump.h5", "pcell", "dim") == 3,
        "dump_attributes");
}

static bool x_in_file_is(const char *file, double a, double b) {
  std::vector<double> xs = read_all<double>(file, "x", H5T_NATIVE_DOUBLE);
  bool ok = xs.size() == (size_t)N * 2;
  for (int i = 0; ok && i < N; i++)
    ok = xs[i * 2] == a * X(i, 0) + b && xs[i * 2 + 1] == a * X(i, 1) + b;
  return ok;
}

static void check_fetch(op_set nodes, op_dat x, op_dat ids, op_dat w, double *hv) {
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    std::remove("fetch.h5");
  MPI_Barrier(MPI_COMM_WORLD);
  op_fetch_data_hdf5_file(x, "fetch.h5"); /* new file */
  op_fetch_data_hdf5_file_path(ids, "fetch.h5", "grp/sub/ids2"); /* new path in a group */
  op_fetch_data_hdf5(w, "fetch.h5", "w");
  op_fetch_data_hdf5_file_ptr((char *)hv, "fetch.h5");
  MPI_Barrier(MPI_COMM_WORLD);
  check(x_in_file_is("fetch.h5", 1.0, 0.0), "fetch_file_original_order");
  std::vector<int> is = read_all<int>("fetch.h5", "grp/sub/ids2", H5T_NATIVE_INT);
  bool ok = is.size() == (size_t)C;
  for (int c = 0; ok && c < C; c++)
    ok = is[c] == 1000 + c;
  check(ok && int_attr_of("fetch.h5", "grp/sub/ids2", "dim") == 1, "fetch_file_path_group");
  std::vector<float> ws = read_all<float>("fetch.h5", "w", H5T_NATIVE_FLOAT);
  ok = ws.size() == (size_t)C;
  for (int c = 0; ok && c < C; c++)
    ok = ws[c] == 0.5f * (float)c;
  check(ok, "fetch_data_hdf5_path");
  std::vector<double> hs = read_all<double>("fetch.h5", "h", H5T_NATIVE_DOUBLE);
  ok = hs.size() == (size_t)N;
  for (int i = 0; ok && i < N; i++)
    ok = hs[i] == 3.0 * i + 0.5;
  check(ok, "fetch_file_ptr");
  op_par_loop(twice, "twice", nodes, op_arg_dat(x, -1, OP_ID, 2, "double", OP_RW));
  op_fetch_data_hdf5_file(x, "fetch.h5"); /* overwrite */
  MPI_Barrier(MPI_COMM_WORLD);
  is = read_all<int>("fetch.h5", "grp/sub/ids2", H5T_NATIVE_INT);
  check(x_in_file_is("fetch.h5", 2.0, 1.0) && is.size() == (size_t)C, "fetch_file_overwrite");
}

static void api() {
  op_set nodes = op_decl_set_hdf5("mesh.h5", "nodes");
  op_set cells = op_decl_set_hdf5("mesh.h5", "cells");
  op_set cells2 = op_decl_set_hdf5_infer_size("mesh.h5", "cells2", "ids");
  op_map pcell = op_decl_map_hdf5(cells, nodes, 3, "mesh.h5", "pcell");
  op_dat x = op_decl_dat_hdf5(nodes, 2, "double", "mesh.h5", "x");
  op_dat ids = op_decl_dat_hdf5(cells, 1, "int", "mesh.h5", "ids");
  op_dat w = op_decl_dat_hdf5(cells, 1, "float", "mesh.h5", "grp/w");
  check_reads(nodes, cells, cells2, pcell, x, ids, w);
  check(op_decl_dat_hdf5(nodes, 1, "double", "mesh.h5", "nope") == NULL &&
            op_decl_map_hdf5(cells, nodes, 3, "mesh.h5", "nomap") == NULL,
        "missing_datasets_are_null");
  check_consts();
  /* a hand-declared dat (user pointer) on this rank's block */
  std::vector<double> hv(nodes->size);
  for (int i = 0; i < nodes->size; i++)
    hv[i] = 3.0 * (lo_of(N) + i) + 0.5;
  op_dat h = op_decl_dat(nodes, 1, "double", hv.data(), "h");
  op_partition("RANDOM", "", cells, pcell, x);
  op_dump_to_hdf5("dump.h5");
  check_dump(nodes, cells, pcell, x, ids, h);
  check_fetch(nodes, x, ids, w, hv.data());
}

/* ---- device (libop2_mpi_cuda on a simulated device) ---- */

static void device_write(op_set nodes, op_dat x) {
  op_arg a[1] = {op_arg_dat(x, -1, OP_ID, 2, "double", OP_WRITE)};
  op_mpi_halo_exchanges_grouped(nodes, 1, a, 2);
  op_mpi_wait_all_grouped(1, a, 2);
  double *xd = (double *)x->data_d;
  for (int i = 0; i < nodes->size * 2; i++)
    xd[i] = 2.0 * xd[i] + 1.0;
  op_mpi_set_dirtybit_cuda(1, a);
}

static void device() {
  op_set nodes = op_decl_set_hdf5("mesh.h5", "nodes");
  op_set cells = op_decl_set_hdf5("mesh.h5", "cells");
  op_map pcell = op_decl_map_hdf5(cells, nodes, 3, "mesh.h5", "pcell");
  op_dat x = op_decl_dat_hdf5(nodes, 2, "double", "mesh.h5", "x");
  op_partition("RANDOM", "", cells, pcell, x);
  check(OP_hybrid_gpu == 1 && x->data_d != NULL, "device_copies");
  device_write(nodes, x);
  check(x->dirty_hd == 2, "device_newer");
  op_dump_to_hdf5("ddump.h5");
  MPI_Barrier(MPI_COMM_WORLD);
  std::vector<double> xs = read_all<double>("ddump.h5", "x", H5T_NATIVE_DOUBLE);
  std::vector<int> seen(N, 0);
  bool ok = xs.size() == (size_t)N * 2;
  for (int r = 0; ok && r < N; r++) {
    int i = (int)(((xs[r * 2] - 1.0) / 2.0 - 0.25) / 100.0);
    ok = i >= 0 && i < N && xs[r * 2] == 2.0 * X(i, 0) + 1.0 &&
         xs[r * 2 + 1] == 2.0 * X(i, 1) + 1.0 && !seen[i]++;
  }
  check(ok, "dump_writes_device_values");
  device_write(nodes, x);
  check(x->dirty_hd == 2, "device_newer_again");
  if (rank == 0)
    std::remove("dfetch.h5");
  MPI_Barrier(MPI_COMM_WORLD);
  op_fetch_data_hdf5_file(x, "dfetch.h5");
  MPI_Barrier(MPI_COMM_WORLD);
  check(x_in_file_is("dfetch.h5", 4.0, 3.0), "fetch_writes_device_values");
}

int main(int argc, char **argv) {
  std::string mode = argc > 1 ? argv[1] : "";
  op_init(argc, argv, 1);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nproc);
  if (mode == "gen") {
    if (rank == 0)
      gen();
  } else if (mode == "api") {
    api();
  } else if (mode == "dimerr") {
    op_set nodes = op_decl_set_hdf5("mesh.h5", "nodes");
    op_decl_dat_hdf5(nodes, 3, "double", "mesh.h5", "x");
    std::printf("not reached\n");
  } else if (mode == "ptrerr") {
    op_set nodes = op_decl_set_hdf5("mesh.h5", "nodes");
    std::vector<double> hv(nodes->size + 1, 1.0);
    op_decl_dat(nodes, 1, "double", hv.data(), "h");
    op_fetch_data_hdf5_file_ptr((char *)(rank == 0 ? hv.data() : hv.data() + 1), "p.h5");
    std::printf("not reached\n");
  } else if (mode == "device") {
    device();
  } else {
    std::printf("unknown mode %s\n", mode.c_str());
    failures++;
  }
  op_exit();
  if (rank == 0)
    std::printf("%d failures\n", failures);
  return failures != 0;
}
