// mpi_features.cpp -- OP2's MPI semantics on awkward distributions, checked
// against plain loops over the global data (which every rank builds
// itself).  Values are small multiples of powers of two, so every result is
// exact whatever the order of summation and is compared exactly.
//
// Sets (global sizes):
//   nodes, cells, edges  structured 12 x 9 grid, scrambled numbering
//   probes (37)          map probes -> nodes (dim 3) to scattered nodes:
//                        most of a probe's nodes live on other ranks
//   marks (7)            declared on ranks 0 .. nranks-2 only: the last rank
//                        starts with no element of the set
//   pair (2)             fewer elements than ranks from 3 ranks on; maps
//                        pair -> nodes (dim 2) and nodes -> pair (dim 1)
// Checks (rank 0 prints "PASS <name>" / "FAIL <name>"):
//   mpi_root_is_0, root_and_rank, get_size_before, get_size_after
//   probe_read, probe_read_after_change   READ through probes -> nodes
//   probe_inc                             INC through probes -> nodes
//   edge_flux, edge_flux_after_change     res_calc-like edge loop (exec
//                                         edges read non-exec halo nodes)
//   marks_reduce, marks_inc, marks_read   loops over the set empty on a rank
//   pair_reduce, pair_inc_nodes, pair_read_from_nodes, pair_inc_from_nodes
//   fetch_data_block                      op_fetch_data: this rank's block
//   fetch_data_idx_full, fetch_data_idx_prefix, fetch_data_idx_offset
//   own_mpi_init                          (with --own-init)
// With --dump=PREFIX every dat listed in `dumps` below is written with
// op_print_dat_to_txtfile / op_print_dat_to_binfile to PREFIX_<dat>.txt /
// .bin, and rank 0 writes what they should contain (MPI formats: "%d %d\n"
// header, "%f " / "%d " per value, newline per element; binary: int count,
// int dim, raw values) to PREFIX_<dat>.expect.txt / .expect.bin.
//
// Options: --part=NAME (mpi_check.h; default RANDOM), --dump=PREFIX,
// --own-init (the program calls MPI_Init before op_init and finalises MPI
// after op_exit unless op_exit already did).  Exit status 1 on failure.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <string>
#include <vector>

#include <mpi.h>

#include "op_lib_mpi.h"
#include "op_seq.h"

#include "mpi_check.h"

// ---------------------------------------------------------------------------
// kernels (the plain loops call the same functions)
// ---------------------------------------------------------------------------

inline void k_probe_read(const double *a, const double *b, const double *c,
                         double *pv) {
  *pv = *a + 2.0 * *b + 4.0 * *c;
}

inline void k_probe_inc(const double *pw, double *a, double *b, double *c) {
  *a += *pw;
  *b += 2.0 * *pw;
  *c += 0.5 * *pw;
}

inline void k_change_node(double *nd) { *nd = 3.0 * *nd + 1.0; }

inline void k_zero_d(double *v) { *v = 0.0; }
inline void k_zero_d2(double *v) { v[0] = v[1] = 0.0; }
inline void k_zero_i(int *v) { *v = 0; }

inline void k_edge_flux(const double *n0, const double *n1, const double *c0,
                        const double *c1, double *r0, double *r1) {
  const double f = *n0 - *n1 + 0.5 * (*c0 + *c1);
  r0[0] += f;
  r1[0] -= f;
  r0[1] += 1.0;
  r1[1] += 1.0;
}

inline void k_cell_from_nodes(const double *a, const double *b,
                              const double *c, const double *d, double *cd) {
  *cd = 0.25 * *cd + *a - *b + 2.0 * *c - *d;
}

inline void k_marks_reduce(const double *md, const int *mi, double *sum,
                           int *mn, int *mx, int *count) {
  *sum += md[0] + md[1];
  if (*mi < *mn)
    *mn = *mi;
  if (*mi > *mx)
    *mx = *mi;
  *count += 1;
}

inline void k_marks_inc(const int *mi, const double *nd, double *md, int *n0,
                        int *n1) {
  md[1] = *nd - md[0];
  *n0 += *mi;
  *n1 += 1;
}

inline void k_pair_inc_nodes(const double *qd, double *a, double *b,
                             double *sum, int *count) {
  *a += *qd;
  *b += 4.0 * *qd;
  *sum += *qd;
  *count += 1;
}

inline void k_pair_from_nodes(const double *qd, const double *nd, float *nf,
                              int *qcnt) {
  nf[0] = (float)(*qd);
  nf[2] = (float)(*nd);
  *qcnt += 1;
}

// ---------------------------------------------------------------------------

// one dat to dump: the op_dat, the expected global data (as double or int)
struct Dump {
  std::string name;
  op_dat dat;
  int dim;
  bool is_int;
  std::vector<double> d; // expected values (doubles and floats)
  std::vector<int> i;    // expected values (ints)
  bool is_float;
};

template <typename T>
static void write_expected_bin(const char *path, int n, int dim,
                               const std::vector<T> &v) {
  FILE *f = fopen(path, "wb");
  if (f == nullptr) {
    printf("cannot write %s\n", path);
    return;
  }
  fwrite(&n, sizeof n, 1, f);
  fwrite(&dim, sizeof dim, 1, f);
  if (!v.empty())
    fwrite(v.data(), sizeof(T), v.size(), f);
  fclose(f);
}

static void write_expected(const char *prefix, const Dump &d) {
  const int n = (int)((d.is_int ? d.i.size() : d.d.size()) / d.dim);
  const std::string txt = std::string(prefix) + "_" + d.name + ".expect.txt";
  const std::string bin = std::string(prefix) + "_" + d.name + ".expect.bin";
  FILE *f = fopen(txt.c_str(), "w");
  if (f == nullptr) {
    printf("cannot write %s\n", txt.c_str());
    return;
  }
  fprintf(f, "%d %d\n", n, d.dim);
  for (int e = 0; e < n; ++e) {
    for (int k = 0; k < d.dim; ++k) {
      if (d.is_int)
        fprintf(f, "%d ", d.i[(size_t)e * d.dim + k]);
      else
        fprintf(f, "%f ", d.d[(size_t)e * d.dim + k]);
    }
    fprintf(f, "\n");
  }
  fclose(f);
  if (d.is_int)
    write_expected_bin(bin.c_str(), n, d.dim, d.i);
  else if (d.is_float) {
    std::vector<float> fv(d.d.begin(), d.d.end());
    write_expected_bin(bin.c_str(), n, d.dim, fv);
  } else
    write_expected_bin(bin.c_str(), n, d.dim, d.d);
}

int main(int argc, char **argv) {
  const char *part_name = "RANDOM";
  const char *dump_prefix = nullptr;
  bool own_init = false;
  for (int i = 1; i < argc; ++i) {
    const char *v;
    if (strstr(argv[i], "OP_") != nullptr)
      continue;
    if ((v = option_value(argv[i], "--part")))
      part_name = v;
    else if ((v = option_value(argv[i], "--dump")))
      dump_prefix = v;
    else if (strcmp(argv[i], "--own-init") == 0)
      own_init = true;
    else {
      fprintf(stderr, "unknown argument '%s'\n", argv[i]);
      return 2;
    }
  }

  // the application may own MPI: initialise it and use it before op_init
  int pre_rank = -1, pre_size = 0, pre_sum = -1;
  if (own_init) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &pre_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &pre_size);
    MPI_Allreduce(&pre_rank, &pre_sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  }

  op_init(argc, argv, 0);
  Checks ck;
  const int rank = ck.rank(), nranks = ck.nranks();

  if (own_init)
    ck.expect("own_mpi_init",
              pre_rank == rank && pre_size == nranks &&
                  pre_sum == nranks * (nranks - 1) / 2,
              "before op_init rank %d of %d (sum %d), after: rank %d of %d",
              pre_rank, pre_size, pre_sum, rank, nranks);

  ck.expect("mpi_root_is_0", MPI_ROOT == 0, "MPI_ROOT is %d", (int)MPI_ROOT);
  {
    int r = -1;
    op_rank(&r);
    const int root = op_is_root() ? 1 : 0;
    int roots = 0;
    MPI_Allreduce(&root, &roots, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    ck.expect("root_and_rank", r == rank && root == (rank == 0) && roots == 1,
              "op_rank %d, op_is_root %d, %d roots", r, root, roots);
  }

  // ---- global data ----------------------------------------------------------
  const Grid g(12, 9, true);
  const int NN = g.nnode, NC = g.ncell, NE = g.nedge;
  const int NP = 37, NM = 7, NQ = 2;

  std::vector<int> probe_map(3 * NP), mark_map(2 * NM), pair_map(2 * NQ),
      node_pair(NN);
  for (int i = 0; i < NP; ++i)
    for (int k = 0; k < 3; ++k)
      probe_map[3 * i + k] = (int)(((long long)i * 7919 + k * 104729 + 11) % NN);
  for (int i = 0; i < NM; ++i) {
    mark_map[2 * i] = (i * 31 + 5) % NN;
    mark_map[2 * i + 1] = (i * 67 + 1) % NN;
  }
  for (int i = 0; i < NQ; ++i) {
    pair_map[2 * i] = (i * 5) % NN;
    pair_map[2 * i + 1] = NN - 1 - i;
  }
  for (int n = 0; n < NN; ++n)
    node_pair[n] = n % 2;

  std::vector<double> nd(NN), nacc(NN, 0.0), cd(NC), cacc(2 * NC, 0.0),
      pv(NP, 0.0), pw(NP), md(2 * NM), qd(NQ);
  std::vector<float> nf(3 * NN);
  std::vector<int> ncnt(NN, 0), ci(NC), mi(NM), qcnt(NQ, 0), owner(NC);
  for (int n = 0; n < NN; ++n) {
    nd[n] = (n * 13 % 29) * 0.5 - 3.0;
    for (int k = 0; k < 3; ++k)
      nf[3 * n + k] = (float)((n * (k + 3)) % 17) * 0.25f;
  }
  for (int c = 0; c < NC; ++c) {
    cd[c] = (c * 11 % 23) * 0.25 - 2.0;
    ci[c] = c * 7 % 19 - 9;
    owner[c] = (c * 5 + 1) % nranks;
  }
  for (int i = 0; i < NP; ++i)
    pw[i] = i * 0.5 + 1.0;
  for (int i = 0; i < NM; ++i) {
    md[2 * i] = i * 1.5;
    md[2 * i + 1] = -i;
    mi[i] = 3 * i - 10;
  }
  qd[0] = 2.5;
  qd[1] = -4.0;

  // ---- initial distribution -------------------------------------------------
  struct Block {
    int start, count;
  };
  auto block = [&](int n) {
    return Block{block_start(n, nranks, rank), block_size(n, nranks, rank)};
  };
  const Block bn = block(NN), bc = block(NC), be = block(NE), bp = block(NP),
              bq = block(NQ);
  // marks: on the first nranks-1 ranks only (all on rank 0 for one rank)
  const int mark_ranks = nranks > 1 ? nranks - 1 : 1;
  const Block bm = rank < mark_ranks
                       ? Block{block_start(NM, mark_ranks, rank),
                               block_size(NM, mark_ranks, rank)}
                       : Block{NM, 0};

  op_set nodes = op_decl_set(bn.count, "nodes");
  op_set cells = op_decl_set(bc.count, "cells");
  op_set edges = op_decl_set(be.count, "edges");
  op_set probes = op_decl_set(bp.count, "probes");
  op_set marks = op_decl_set(bm.count, "marks");
  op_set pair = op_decl_set(bq.count, "pair");

  const long long sizes_before[6] = {
      (long long)op_get_size(nodes),  (long long)op_get_size(cells),
      (long long)op_get_size(edges),  (long long)op_get_size(probes),
      (long long)op_get_size(marks),  (long long)op_get_size(pair)};
  const long long sizes_want[6] = {NN, NC, NE, NP, NM, NQ};
  {
    bool ok = true;
    for (int s = 0; s < 6; ++s)
      ok = ok && sizes_before[s] == sizes_want[s];
    ck.expect("get_size_before", ok,
              "%lld %lld %lld %lld %lld %lld", sizes_before[0],
              sizes_before[1], sizes_before[2], sizes_before[3],
              sizes_before[4], sizes_before[5]);
  }

  std::vector<int> l_pcell = rows_of(g.cell, 4, bc.start, bc.count),
                   l_pedge = rows_of(g.edge, 2, be.start, be.count),
                   l_pecell = rows_of(g.ecell, 2, be.start, be.count),
                   l_pprobe = rows_of(probe_map, 3, bp.start, bp.count),
                   l_pmark = rows_of(mark_map, 2, bm.start, bm.count),
                   l_ppair = rows_of(pair_map, 2, bq.start, bq.count),
                   l_pnodepair = rows_of(node_pair, 1, bn.start, bn.count);
  op_map pcell = op_decl_map(cells, nodes, 4, l_pcell.data(), "pcell");
  op_map pedge = op_decl_map(edges, nodes, 2, l_pedge.data(), "pedge");
  op_map pecell = op_decl_map(edges, cells, 2, l_pecell.data(), "pecell");
  op_map pprobe = op_decl_map(probes, nodes, 3, l_pprobe.data(), "pprobe");
  op_map pmark = op_decl_map(marks, nodes, 2, l_pmark.data(), "pmark");
  op_map ppair = op_decl_map(pair, nodes, 2, l_ppair.data(), "ppair");
  op_map pnodepair =
      op_decl_map(nodes, pair, 1, l_pnodepair.data(), "pnodepair");

  std::vector<double> l_nd = rows_of(nd, 1, bn.start, bn.count),
                      l_nacc = rows_of(nacc, 1, bn.start, bn.count),
                      l_xy = rows_of(g.xy, 2, bn.start, bn.count),
                      l_cd = rows_of(cd, 1, bc.start, bc.count),
                      l_cacc = rows_of(cacc, 2, bc.start, bc.count),
                      l_cxyz = rows_of(g.cxyz, 3, bc.start, bc.count),
                      l_pv = rows_of(pv, 1, bp.start, bp.count),
                      l_pw = rows_of(pw, 1, bp.start, bp.count),
                      l_md = rows_of(md, 2, bm.start, bm.count),
                      l_qd = rows_of(qd, 1, bq.start, bq.count);
  std::vector<float> l_nf = rows_of(nf, 3, bn.start, bn.count);
  std::vector<int> l_ncnt = rows_of(ncnt, 1, bn.start, bn.count),
                   l_ci = rows_of(ci, 1, bc.start, bc.count),
                   l_owner = rows_of(owner, 1, bc.start, bc.count),
                   l_mi = rows_of(mi, 1, bm.start, bm.count),
                   l_qcnt = rows_of(qcnt, 1, bq.start, bq.count);

  op_dat p_nd = op_decl_dat(nodes, 1, "double", l_nd.data(), "p_nd");
  op_dat p_nacc = op_decl_dat(nodes, 1, "double", l_nacc.data(), "p_nacc");
  op_dat p_xy = op_decl_dat(nodes, 2, "double", l_xy.data(), "p_xy");
  op_dat p_nf = op_decl_dat(nodes, 3, "float", l_nf.data(), "p_nf");
  op_dat p_ncnt = op_decl_dat(nodes, 1, "int", l_ncnt.data(), "p_ncnt");
  op_dat p_cd = op_decl_dat(cells, 1, "double", l_cd.data(), "p_cd");
  op_dat p_cacc = op_decl_dat(cells, 2, "double", l_cacc.data(), "p_cacc");
  op_dat p_ci = op_decl_dat(cells, 1, "int", l_ci.data(), "p_ci");
  op_dat p_pv = op_decl_dat(probes, 1, "double", l_pv.data(), "p_pv");
  op_dat p_pw = op_decl_dat(probes, 1, "double", l_pw.data(), "p_pw");
  op_dat p_md = op_decl_dat(marks, 2, "double", l_md.data(), "p_md");
  op_dat p_mi = op_decl_dat(marks, 1, "int", l_mi.data(), "p_mi");
  op_dat p_qd = op_decl_dat(pair, 1, "double", l_qd.data(), "p_qd");
  op_dat p_qcnt = op_decl_dat(pair, 1, "int", l_qcnt.data(), "p_qcnt");

  const PartitionCall pc = partition_call(part_name);
  op_dat coords = p_xy;
  if (pc.coords == PartitionCall::CENTROIDS)
    coords = op_decl_dat(cells, 3, "double", l_cxyz.data(), "p_cxyz");
  else if (pc.coords == PartitionCall::OWNER)
    coords = op_decl_dat(cells, 1, "int", l_owner.data(), "p_owner");
  op_partition(pc.lib, pc.routine, cells, pecell, coords);

  {
    bool ok = true;
    const op_set sets[6] = {nodes, cells, edges, probes, marks, pair};
    long long got[6];
    for (int s = 0; s < 6; ++s) {
      got[s] = (long long)op_get_size(sets[s]);
      ok = ok && got[s] == sizes_want[s];
    }
    ck.expect("get_size_after", ok, "%lld %lld %lld %lld %lld %lld", got[0],
              got[1], got[2], got[3], got[4], got[5]);
  }

  // fetch a whole dat in global order and compare it with `want`
  auto expect_dat_d = [&](const char *check, op_dat dat, int n, int dim,
                          const std::vector<double> &want) {
    std::vector<double> got((size_t)n * dim + 1);
    op_fetch_data_idx(dat, got.data(), 0, n - 1);
    size_t bad = 0;
    ck.expect(check, same_values(got.data(), want.data(), (size_t)n * dim, &bad),
              "%s element %zu component %zu is %.17g, expected %.17g",
              dat->name, bad / dim, bad % dim, got[bad], want[bad]);
  };
  auto expect_dat_f = [&](const char *check, op_dat dat, int n, int dim,
                          const std::vector<float> &want) {
    std::vector<float> got((size_t)n * dim + 1);
    op_fetch_data_idx(dat, got.data(), 0, n - 1);
    size_t bad = 0;
    ck.expect(check, same_values(got.data(), want.data(), (size_t)n * dim, &bad),
              "%s element %zu component %zu is %.9g, expected %.9g", dat->name,
              bad / dim, bad % dim, (double)got[bad], (double)want[bad]);
  };
  auto expect_dat_i = [&](const char *check, op_dat dat, int n, int dim,
                          const std::vector<int> &want) {
    std::vector<int> got((size_t)n * dim + 1);
    op_fetch_data_idx(dat, got.data(), 0, n - 1);
    size_t bad = 0;
    ck.expect(check, same_values(got.data(), want.data(), (size_t)n * dim, &bad),
              "%s element %zu component %zu is %d, expected %d", dat->name,
              bad / dim, bad % dim, got[bad], want[bad]);
  };

  // ---- probes: reads and increments through a scattered map ------------------
  auto probe_read = [&](const char *check) {
    op_par_loop(k_probe_read, "probe_read", probes,
                op_arg_dat(p_nd, 0, pprobe, 1, "double", OP_READ),
                op_arg_dat(p_nd, 1, pprobe, 1, "double", OP_READ),
                op_arg_dat(p_nd, 2, pprobe, 1, "double", OP_READ),
                op_arg_dat(p_pv, -1, OP_ID, 1, "double", OP_WRITE));
    for (int i = 0; i < NP; ++i)
      k_probe_read(&nd[probe_map[3 * i]], &nd[probe_map[3 * i + 1]],
                   &nd[probe_map[3 * i + 2]], &pv[i]);
    expect_dat_d(check, p_pv, NP, 1, pv);
  };
  probe_read("probe_read");

  op_par_loop(k_change_node, "change_node", nodes,
              op_arg_dat(p_nd, -1, OP_ID, 1, "double", OP_RW));
  for (int n = 0; n < NN; ++n)
    k_change_node(&nd[n]);
  probe_read("probe_read_after_change");

  op_par_loop(k_probe_inc, "probe_inc", probes,
              op_arg_dat(p_pw, -1, OP_ID, 1, "double", OP_READ),
              op_arg_dat(p_nacc, 0, pprobe, 1, "double", OP_INC),
              op_arg_dat(p_nacc, 1, pprobe, 1, "double", OP_INC),
              op_arg_dat(p_nacc, 2, pprobe, 1, "double", OP_INC));
  for (int i = 0; i < NP; ++i)
    k_probe_inc(&pw[i], &nacc[probe_map[3 * i]], &nacc[probe_map[3 * i + 1]],
                &nacc[probe_map[3 * i + 2]]);
  expect_dat_d("probe_inc", p_nacc, NN, 1, nacc);

  // ---- edges: exec halo edges read non-exec halo nodes -------------------------
  auto edge_flux = [&](const char *check) {
    op_par_loop(k_zero_d2, "zero_cacc", cells,
                op_arg_dat(p_cacc, -1, OP_ID, 2, "double", OP_WRITE));
    op_par_loop(k_edge_flux, "edge_flux", edges,
                op_arg_dat(p_nd, 0, pedge, 1, "double", OP_READ),
                op_arg_dat(p_nd, 1, pedge, 1, "double", OP_READ),
                op_arg_dat(p_cd, 0, pecell, 1, "double", OP_READ),
                op_arg_dat(p_cd, 1, pecell, 1, "double", OP_READ),
                op_arg_dat(p_cacc, 0, pecell, 2, "double", OP_INC),
                op_arg_dat(p_cacc, 1, pecell, 2, "double", OP_INC));
    for (int c = 0; c < NC; ++c)
      k_zero_d2(&cacc[2 * c]);
    for (int e = 0; e < NE; ++e)
      k_edge_flux(&nd[g.edge[2 * e]], &nd[g.edge[2 * e + 1]],
                  &cd[g.ecell[2 * e]], &cd[g.ecell[2 * e + 1]],
                  &cacc[2 * g.ecell[2 * e]], &cacc[2 * g.ecell[2 * e + 1]]);
    expect_dat_d(check, p_cacc, NC, 2, cacc);
  };
  edge_flux("edge_flux");

  op_par_loop(k_cell_from_nodes, "cell_from_nodes", cells,
              op_arg_dat(p_nd, 0, pcell, 1, "double", OP_READ),
              op_arg_dat(p_nd, 1, pcell, 1, "double", OP_READ),
              op_arg_dat(p_nd, 2, pcell, 1, "double", OP_READ),
              op_arg_dat(p_nd, 3, pcell, 1, "double", OP_READ),
              op_arg_dat(p_cd, -1, OP_ID, 1, "double", OP_RW));
  for (int c = 0; c < NC; ++c)
    k_cell_from_nodes(&nd[g.cell[4 * c]], &nd[g.cell[4 * c + 1]],
                      &nd[g.cell[4 * c + 2]], &nd[g.cell[4 * c + 3]], &cd[c]);
  op_par_loop(k_change_node, "change_node", nodes,
              op_arg_dat(p_nd, -1, OP_ID, 1, "double", OP_RW));
  for (int n = 0; n < NN; ++n)
    k_change_node(&nd[n]);
  edge_flux("edge_flux_after_change");

  // ---- marks: a set with no element on the last rank ---------------------------
  {
    double sum = 0.0;
    int mn = 1 << 30, mx = -(1 << 30), count = 0;
    op_par_loop(k_marks_reduce, "marks_reduce", marks,
                op_arg_dat(p_md, -1, OP_ID, 2, "double", OP_READ),
                op_arg_dat(p_mi, -1, OP_ID, 1, "int", OP_READ),
                op_arg_gbl(&sum, 1, "double", OP_INC),
                op_arg_gbl(&mn, 1, "int", OP_MIN),
                op_arg_gbl(&mx, 1, "int", OP_MAX),
                op_arg_gbl(&count, 1, "int", OP_INC));
    double wsum = 0.0;
    int wmn = 1 << 30, wmx = -(1 << 30), wcount = 0;
    for (int i = 0; i < NM; ++i)
      k_marks_reduce(&md[2 * i], &mi[i], &wsum, &wmn, &wmx, &wcount);
    ck.expect("marks_reduce",
              sum == wsum && mn == wmn && mx == wmx && count == wcount,
              "got %.17g %d %d %d, expected %.17g %d %d %d", sum, mn, mx,
              count, wsum, wmn, wmx, wcount);

    op_par_loop(k_marks_inc, "marks_inc", marks,
                op_arg_dat(p_mi, -1, OP_ID, 1, "int", OP_READ),
                op_arg_dat(p_nd, 0, pmark, 1, "double", OP_READ),
                op_arg_dat(p_md, -1, OP_ID, 2, "double", OP_RW),
                op_arg_dat(p_ncnt, 0, pmark, 1, "int", OP_INC),
                op_arg_dat(p_ncnt, 1, pmark, 1, "int", OP_INC));
    for (int i = 0; i < NM; ++i)
      k_marks_inc(&mi[i], &nd[mark_map[2 * i]], &md[2 * i],
                  &ncnt[mark_map[2 * i]], &ncnt[mark_map[2 * i + 1]]);
    expect_dat_i("marks_inc", p_ncnt, NN, 1, ncnt);
    expect_dat_d("marks_read", p_md, NM, 2, md);
  }

  // ---- pair: 2 elements, up to 4 ranks -----------------------------------------
  {
    double sum = 0.0;
    int count = 0;
    op_par_loop(k_pair_inc_nodes, "pair_inc_nodes", pair,
                op_arg_dat(p_qd, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(p_nacc, 0, ppair, 1, "double", OP_INC),
                op_arg_dat(p_nacc, 1, ppair, 1, "double", OP_INC),
                op_arg_gbl(&sum, 1, "double", OP_INC),
                op_arg_gbl(&count, 1, "int", OP_INC));
    double wsum = 0.0;
    int wcount = 0;
    for (int i = 0; i < NQ; ++i)
      k_pair_inc_nodes(&qd[i], &nacc[pair_map[2 * i]],
                       &nacc[pair_map[2 * i + 1]], &wsum, &wcount);
    ck.expect("pair_reduce", sum == wsum && count == wcount,
              "got %.17g %d, expected %.17g %d", sum, count, wsum, wcount);
    expect_dat_d("pair_inc_nodes", p_nacc, NN, 1, nacc);

    op_par_loop(k_pair_from_nodes, "pair_from_nodes", nodes,
                op_arg_dat(p_qd, 0, pnodepair, 1, "double", OP_READ),
                op_arg_dat(p_nd, -1, OP_ID, 1, "double", OP_READ),
                op_arg_dat(p_nf, -1, OP_ID, 3, "float", OP_RW),
                op_arg_dat(p_qcnt, 0, pnodepair, 1, "int", OP_INC));
    for (int n = 0; n < NN; ++n)
      k_pair_from_nodes(&qd[node_pair[n]], &nd[n], &nf[3 * n],
                        &qcnt[node_pair[n]]);
    expect_dat_f("pair_read_from_nodes", p_nf, NN, 3, nf);
    expect_dat_i("pair_inc_from_nodes", p_qcnt, NQ, 1, qcnt);
  }

  // ---- op_fetch_data: this rank's block of the initial distribution ---------
  {
    bool ok = true;
    char what[128] = "";
    auto block_check = [&](op_dat dat, int dim, Block b, const auto &want,
                           auto zero) {
      std::vector<decltype(zero)> got((size_t)dim * b.count + 1, zero);
      op_fetch_data(dat, got.data());
      for (size_t k = 0; k < (size_t)dim * b.count; ++k)
        if (!(got[k] == want[(size_t)dim * b.start + k])) {
          if (ok)
            snprintf(what, sizeof what, "%s: local element %zu differs",
                     dat->name, k / dim);
          ok = false;
          return;
        }
    };
    block_check(p_nd, 1, bn, nd, 0.0);
    block_check(p_nf, 3, bn, nf, 0.0f);
    block_check(p_ci, 1, bc, ci, 0);
    block_check(p_cacc, 2, bc, cacc, 0.0);
    block_check(p_md, 2, bm, md, 0.0);
    block_check(p_mi, 1, bm, mi, 0);
    block_check(p_qd, 1, bq, qd, 0.0);
    block_check(p_qcnt, 1, bq, qcnt, 0);
    block_check(p_pv, 1, bp, pv, 0.0);
    ck.expect("fetch_data_block", ok, "%s", what);
  }

  // ---- op_fetch_data_idx ---------------------------------------------------------
  expect_dat_d("fetch_data_idx_full", p_xy, NN, 2, g.xy);
  expect_dat_i("fetch_data_idx_full", p_mi, NM, 1, mi);
  expect_dat_d("fetch_data_idx_full", p_qd, NQ, 1, qd);
  {
    // [0, high]
    const int high = NC / 3;
    std::vector<double> got(2 * (size_t)(high + 1));
    op_fetch_data_idx(p_cacc, got.data(), 0, high);
    size_t bad = 0;
    ck.expect("fetch_data_idx_prefix",
              same_values(got.data(), cacc.data(), 2 * (size_t)(high + 1),
                          &bad),
              "value %zu is %.17g, expected %.17g", bad, got[bad], cacc[bad]);
  }
  {
    // [low, high] with low > 0: the first high - low + 1 elements must be
    // elements low .. high (OP2 copies high + 1 elements from low on, so
    // the buffer is high + 1 long and low + high stays inside the set)
    const int low = 5, high = NN / 2;
    std::vector<float> got(3 * (size_t)(high + 1));
    op_fetch_data_idx(p_nf, got.data(), low, high);
    size_t bad = 0;
    ck.expect("fetch_data_idx_offset",
              same_values(got.data(), &nf[3 * (size_t)low],
                          3 * (size_t)(high - low + 1), &bad),
              "value %zu is %.9g, expected %.9g", bad, (double)got[bad],
              (double)nf[3 * (size_t)low + bad]);
  }

  // ---- dumps -----------------------------------------------------------------------
  if (dump_prefix != nullptr) {
    std::vector<Dump> dumps;
    auto add_d = [&](const char *name, op_dat dat, int dim,
                     const std::vector<double> &v) {
      dumps.push_back(Dump{name, dat, dim, false, v, {}, false});
    };
    auto add_f = [&](const char *name, op_dat dat, int dim,
                     const std::vector<float> &v) {
      dumps.push_back(Dump{name, dat, dim, false,
                           std::vector<double>(v.begin(), v.end()), {}, true});
    };
    auto add_i = [&](const char *name, op_dat dat, int dim,
                     const std::vector<int> &v) {
      dumps.push_back(Dump{name, dat, dim, true, {}, v, false});
    };
    add_d("nd", p_nd, 1, nd);
    add_d("xy", p_xy, 2, g.xy);
    add_f("nf", p_nf, 3, nf);
    add_i("ncnt", p_ncnt, 1, ncnt);
    add_d("cacc", p_cacc, 2, cacc);
    add_i("ci", p_ci, 1, ci);
    add_d("pv", p_pv, 1, pv);
    add_d("md", p_md, 2, md);
    add_i("mi", p_mi, 1, mi);
    add_d("qd", p_qd, 1, qd);
    add_i("qcnt", p_qcnt, 1, qcnt);
    for (const Dump &d : dumps) {
      const std::string base = std::string(dump_prefix) + "_" + d.name;
      op_print_dat_to_txtfile(d.dat, (base + ".txt").c_str());
      op_print_dat_to_binfile(d.dat, (base + ".bin").c_str());
      if (rank == 0)
        write_expected(dump_prefix, d);
    }
    op_printf("dumped %d dats to %s_*\n", (int)dumps.size(), dump_prefix);
  }

  const int failed = ck.report();
  op_printf("%s\n", failed == 0 ? "PASSED" : "FAILED");
  op_exit();

  if (own_init) {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (rank == 0)
      printf("after op_exit: MPI %s\n",
             finalized ? "finalized by op_exit" : "still initialised");
    if (!finalized) {
      // MPI is still usable: one more collective, then finalise
      int one = 1, n = 0;
      MPI_Allreduce(&one, &n, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
      if (rank == 0)
        printf("after op_exit: allreduce over %d ranks\n", n);
      MPI_Finalize();
    }
  }
  return failed == 0 ? 0 : 1;
}
