// mpi_data.cpp -- OP2's helpers for library-held data under MPI (libop2_mpi):
// op_get_g_index, op_force_part, op_mpi_get_data / op_fetch_data_file_char,
// op_mpi_reset_halos, op_disable_mpi_reductions, op_get/put_dat_mpi,
// op_halo_create, compute_local_size and an overlay after partitioning.
// Every value is checked against what this program computes from the
// global numbering. Each rank prints PASS/FAIL lines.
//
//   mpi_data              RANDOM partition of the nodes, op_force_part
//   mpi_data halo-create  no op_partition: op_halo_create builds the halos
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include <vector>

#include "op_lib_mpi.h"
#include "op_seq.h"
#include "op_util.h"

static int failures = 0;

static void report(const char *name, bool ok) {
  printf("%s %s\n", ok ? "PASS" : "FAIL", name);
  if (!ok)
    ++failures;
}

static void edge_sum(const double *a, const double *b, double *e) { *e = *a + *b; }
static void sum1(const double *x, double *s) { *s += *x; }
static void add100(double *x) { *x += 100.0; }
static void touch(double *x) { *x += 0.0; }

static const int G = 24;   // nodes, a ring through the edges
static const int GP = 6;   // groups of 4 nodes: p, p+6, p+12, p+18

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  op_init(argc, argv, 1);
  const bool halo_create = argc > 1 && !strcmp(argv[1], "halo-create");
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  // This rank's declared blocks (OP2's block rule).
  int nn = compute_local_size(G, size, rank), noff = 0;
  int np = compute_local_size(GP, size, rank), poff = 0;
  for (int r = 0; r < rank; ++r) {
    noff += compute_local_size(G, size, r);
    poff += compute_local_size(GP, size, r);
  }
  std::vector<double> val(nn);
  std::vector<int> ering(2 * nn), group(4 * np);
  for (int i = 0; i < nn; ++i) {
    val[i] = 1.5 * (noff + i);
    ering[2 * i] = noff + i;
    ering[2 * i + 1] = (noff + i + 1) % G;
  }
  for (int i = 0; i < np; ++i)
    for (int k = 0; k < 4; ++k)
      group[4 * i + k] = poff + i + GP * k;

  op_set nodes = op_decl_set(nn, "nodes");
  op_set edges = op_decl_set(nn, "edges");
  op_set groups = op_decl_set(np, "groups");
  op_map e2n = op_decl_map(edges, nodes, 2, ering.data(), "e2n");
  op_map g2n = op_decl_map(groups, nodes, 4, group.data(), "g2n");
  op_dat v = op_decl_dat(nodes, 1, "double", val.data(), "val");
  op_dat es = op_decl_dat(edges, 1, "double", (double *)NULL, "esum");
  (void)g2n;
  report("sizes", op_get_size(nodes) == G && op_get_size(groups) == GP);

  if (halo_create) {
    op_halo_create();
    report("halo_create", op_is_partitioned() == 1 && nodes->size == nn &&
                              nodes->exec_size + nodes->nonexec_size > 0);
  } else {
    op_force_part(group.data());
    op_partition("RANDOM", "", nodes, NULL, NULL);
  }

  // ---- op_get_g_index: owned elements' global indices ----
  const long long *gi = (const long long *)op_get_g_index(nodes);
  std::vector<int> owner(G, -1);
  {
    bool ok = gi != NULL;
    int n = nodes->size;
    std::vector<int> counts(size), displs(size);
    MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
    int total = 0;
    for (int r = 0; r < size; ++r) {
      displs[r] = total;
      total += counts[r];
    }
    std::vector<long long> mine(gi, gi + n), all(total);
    MPI_Allgatherv(mine.data(), n, MPI_LONG_LONG, all.data(), counts.data(), displs.data(),
                   MPI_LONG_LONG, MPI_COMM_WORLD);
    ok = ok && total == G;
    for (int r = 0; r < size; ++r)
      for (int k = 0; k < counts[r]; ++k) {
        long long g = all[displs[r] + k];
        ok = ok && g >= 0 && g < G && owner[g] == -1;
        if (g >= 0 && g < G)
          owner[g] = r;
      }
    for (int i = 0; i < n; ++i)
      ok = ok && ((double *)v->data)[i] == 1.5 * (double)gi[i];
    report("g_index", ok);
  }
  if (!halo_create) {
    bool ok = true;
    for (int p = 0; p < GP; ++p)
      for (int k = 1; k < 4; ++k)
        ok = ok && owner[p + GP * k] == owner[p];
    report("force_part", ok);
  }

  // ---- op_mpi_reset_halos: stale import halos become NaN ----
  {
    int lo = nodes->size, hi = nodes->size + nodes->exec_size + nodes->nonexec_size;
    // a loop that writes the dat leaves its halo stale (dirty)
    op_par_loop(touch, "touch", nodes, op_arg_dat(v, -1, OP_ID, 1, "double", OP_RW));
    bool stale_before = v->dirtybit == 1;
    op_arg args[1] = {op_arg_dat(v, 0, e2n, 1, "double", OP_READ)};
    op_mpi_reset_halos(1, args);
    bool ok = hi > lo && stale_before;
    for (int i = lo; i < hi; ++i)
      ok = ok && isnan(((double *)v->data)[i]);
    for (int i = 0; i < lo; ++i)
      ok = ok && ((double *)v->data)[i] == 1.5 * (double)gi[i];
    report("reset_halos_nan", ok);
    // the next loop that reads through the map exchanges the halo
    op_par_loop(edge_sum, "edge_sum", edges, op_arg_dat(v, 0, e2n, 1, "double", OP_READ),
                op_arg_dat(v, 1, e2n, 1, "double", OP_READ),
                op_arg_dat(es, -1, OP_ID, 1, "double", OP_WRITE));
    bool ok2 = true;
    for (int i = lo; i < hi; ++i)
      ok2 = ok2 && !isnan(((double *)v->data)[i]);
    report("halo_refreshed", ok2);
  }

  // ---- copies in the original order ----
  {
    op_dat t = op_mpi_get_data(es);
    bool ok = t->set->size == nn && t->dim == 1 && !strcmp(t->name, "esum");
    for (int i = 0; ok && i < nn; ++i) {
      int e = noff + i;
      ok = ((double *)t->data)[i] == 1.5 * (e + (e + 1) % G);
    }
    op_mpi_free_data(t);
    op_dat f = op_fetch_data_file_char(v);
    ok = ok && f->set->size == nn;
    for (int i = 0; ok && i < nn; ++i)
      ok = ((double *)f->data)[i] == 1.5 * (noff + i);
    op_mpi_free_data(f);
    report("mpi_get_data", ok);
  }

  // ---- op_disable_mpi_reductions ----
  {
    double local = 0.0, s = 0.0;
    for (int i = 0; i < nodes->size; ++i)
      local += ((double *)v->data)[i];
    op_disable_mpi_reductions(true);
    op_par_loop(sum1, "sum1", nodes, op_arg_dat(v, -1, OP_ID, 1, "double", OP_READ),
                op_arg_gbl(&s, 1, "double", OP_INC));
    bool ok = s == local;
    op_disable_mpi_reductions(false);
    double s2 = 0.0;
    op_par_loop(sum1, "sum1", nodes, op_arg_dat(v, -1, OP_ID, 1, "double", OP_READ),
                op_arg_gbl(&s2, 1, "double", OP_INC));
    ok = ok && s2 == 1.5 * (G * (G - 1) / 2) && (size == 1 || s != s2);
    report("disable_mpi_reductions", ok);
  }

  // ---- op_get_dat_mpi / op_put_dat_mpi: no device, nothing moves ----
  {
    std::vector<double> a(nn), b(nn);
    op_fetch_data(v, a.data());
    op_get_dat_mpi(v);
    op_put_dat_mpi(v);
    op_fetch_data(v, b.data());
    report("get_put_dat_mpi", a == b);
  }

  // ---- an overlay declared after partitioning shares storage ----
  {
    op_dat ov = op_decl_dat_overlay(nodes, v);
    op_par_loop(add100, "add100", nodes, op_arg_dat(ov, -1, OP_ID, 1, "double", OP_RW));
    std::vector<double> a(nn);
    op_fetch_data(v, a.data());
    bool ok = ov->data == v->data;
    for (int i = 0; i < nn; ++i)
      ok = ok && a[i] == 1.5 * (noff + i) + 100.0;
    report("overlay_after_partition", ok);
  }

  op_exit();
  MPI_Finalize();
  return failures ? 1 : 0;
}
