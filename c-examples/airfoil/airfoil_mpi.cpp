// airfoil_mpi.cpp -- the airfoil example (airfoil.cpp) distributed over MPI
// ranks with OP2's MPI library (libop2_mpi).
//
// The solver, the kernels and the printed result lines are those of
// airfoil.cpp, so the output of both can be compared line by line.  What
// differs is the set-up:
//
//   * rank 0 reads the mesh file (or generates the built-in O-grid) and hands
//     every rank a contiguous block of nodes, cells, edges and boundary edges
//     (block sizes n / nranks, one more for the first n % nranks ranks) with
//     MPI_Scatterv; map rows keep GLOBAL target indices;
//   * each rank declares only its blocks (op_decl_set(local size), ...);
//   * op_partition(...) then moves every element to its owner and builds the
//     halos; the partitioner is chosen with --part=NAME (below);
//   * the rms is normalised by the global cell count, the final q is fetched
//     in the original global order with op_fetch_data_idx on every rank and
//     written with op_print_dat_to_binfile (gathered to rank 0).
//
// Command line: everything airfoil.cpp accepts (mesh file or --cells /
// --ni --nj, --iters, --out, --diags, OP2 runtime arguments) plus
//   --part=NAME   partitioner, default PARMETIS:
//                   PARMETIS  -> op_partition("PARMETIS", "KWAY", ...)
//                   GEOMKWAY  -> op_partition("PARMETIS", "GEOMKWAY", ...)
//                   GEOM      -> op_partition("PARMETIS", "GEOM", ..., p_x)
//                   PTSCOTCH  -> op_partition("PTSCOTCH", "KWAY", ...)
//                   KAHIP     -> op_partition("KAHIP", "KWAY", ...)
//                   INERTIAL  -> op_partition("INERTIAL", "INERTIAL", ...)
//                                with a dim-3 dat of cell centroids (x, y, 0)
//                   RANDOM    -> op_partition("RANDOM", "RANDOM", ...)
//                   EXTERNAL  -> op_partition("EXTERNAL", "EXTERNAL", ...)
//                                with an int dat on cells holding each
//                                cell's target rank (shifted blocks, so
//                                nearly every cell changes rank)
//                 any other NAME is passed to op_partition unchanged (as the
//                 library name, routine "KWAY"): OP2 reports it and keeps the
//                 initial block distribution.
//   --rms=FILE    rank 0 writes "iter rms" (%.17e) for EVERY iteration to
//                 FILE, for comparisons tighter than the printed %10.5e.
//
// Besides the airfoil.cpp lines it prints the distribution ("ranks ..."
// lines) and the result of a few consistency checks ("checks: ..."); the
// exit status is 1 if a check failed.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include <mpi.h>

// flow constants read by the kernels (declared to OP2 with op_decl_const)
double gam, gm1, cfl, eps, mach, alpha, qinf[4];

#include "op_lib_mpi.h"
#include "op_seq.h"

#include "airfoil_setup.h"

#include "airfoil_step.h"

// ---------------------------------------------------------------------------
// block distribution
// ---------------------------------------------------------------------------

// number of elements of a set of n that rank r holds before partitioning
static int block_size(int n, int nranks, int r) {
  return n / nranks + (r < n % nranks ? 1 : 0);
}

// global index of rank r's first element
static int block_start(int n, int nranks, int r) {
  int start = 0;
  for (int k = 0; k < r; ++k)
    start += block_size(n, nranks, k);
  return start;
}

template <typename T> MPI_Datatype mpi_type();
template <> MPI_Datatype mpi_type<int>() { return MPI_INT; }
template <> MPI_Datatype mpi_type<double>() { return MPI_DOUBLE; }

// Rank 0's `global` (n rows of dim values; ignored elsewhere) is cut into
// blocks; every rank receives its own block.
template <typename T>
static std::vector<T> scatter_rows(const T *global, int n, int dim, int rank,
                                   int nranks) {
  std::vector<int> counts(nranks), displs(nranks);
  for (int r = 0; r < nranks; ++r) {
    counts[r] = dim * block_size(n, nranks, r);
    displs[r] = dim * block_start(n, nranks, r);
  }
  // one spare element so that data() is never null
  std::vector<T> local((size_t)counts[rank] + 1);
  MPI_Scatterv(global, counts.data(), displs.data(), mpi_type<T>(),
               local.data(), counts[rank], mpi_type<T>(), MPI_ROOT,
               MPI_COMM_WORLD);
  local.resize((size_t)counts[rank]);
  return local;
}

// ---------------------------------------------------------------------------
// command line: --part and --rms are ours, the rest goes to airfoil_setup.h
// ---------------------------------------------------------------------------

struct MpiOptions {
  const char *part = "PARMETIS";
  const char *rms_file = nullptr;
};

static MpiOptions take_mpi_options(int argc, char **argv,
                                   std::vector<char *> *rest) {
  MpiOptions o;
  rest->push_back(argv[0]);
  for (int i = 1; i < argc; ++i) {
    const char *v;
    if (!airfoil_is_runtime_arg(argv[i]) &&
        (v = airfoil_opt(argv[i], "--part")))
      o.part = v;
    else if (!airfoil_is_runtime_arg(argv[i]) &&
             (v = airfoil_opt(argv[i], "--rms")))
      o.rms_file = v;
    else
      rest->push_back(argv[i]);
  }
  rest->push_back(nullptr);
  return o;
}

struct Partitioner {
  const char *lib;
  const char *routine;
  bool needs_centroids; // INERTIAL: dim-3 coordinates on cells
  bool needs_owner;     // EXTERNAL: int dat of target ranks on cells
};

static Partitioner partitioner_for(const char *name) {
  if (strcmp(name, "PARMETIS") == 0)
    return {"PARMETIS", "KWAY", false, false};
  if (strcmp(name, "GEOMKWAY") == 0)
    return {"PARMETIS", "GEOMKWAY", false, false};
  if (strcmp(name, "GEOM") == 0)
    return {"PARMETIS", "GEOM", false, false};
  if (strcmp(name, "PTSCOTCH") == 0)
    return {"PTSCOTCH", "KWAY", false, false};
  if (strcmp(name, "KAHIP") == 0)
    return {"KAHIP", "KWAY", false, false};
  if (strcmp(name, "INERTIAL") == 0)
    return {"INERTIAL", "INERTIAL", true, false};
  if (strcmp(name, "RANDOM") == 0)
    return {"RANDOM", "RANDOM", false, false};
  if (strcmp(name, "EXTERNAL") == 0)
    return {"EXTERNAL", "EXTERNAL", false, true};
  return {name, "KWAY", false, false};
}

// ---------------------------------------------------------------------------

int main(int argc, char **argv) {
  std::vector<char *> rest;
  const MpiOptions mopt = take_mpi_options(argc, argv, &rest);
  for (int i = 1; i < argc; ++i)
    if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
      printf("(MPI) also: [--part=PARMETIS|GEOMKWAY|GEOM|PTSCOTCH|KAHIP|"
             "INERTIAL|RANDOM|EXTERNAL|<other>] [--rms=FILE]\n");
  AirfoilOptions opt = airfoil_parse_args((int)rest.size() - 1, rest.data());
  const Partitioner part = partitioner_for(mopt.part);

  op_init(argc, argv, opt.diags);

  int rank = 0, nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);

  op_printf("%s grid \n", opt.mesh_file ? "reading in" : "generating");

  // ---- the global mesh exists on rank 0 only -------------------------------
  naca_mesh g; // global mesh (rank 0)
  memset(&g, 0, sizeof g);
  int header[5] = {0, 0, 0, 0, 0}; // status, nnode, ncell, nedge, nbedge
  if (rank == MPI_ROOT) {
    int status;
    if (opt.mesh_file != nullptr)
      status = naca_mesh_read(opt.mesh_file, &g);
    else {
      int ni = opt.ni, nj = opt.nj;
      if (ni == 0)
        naca_mesh_dims_for_cells(opt.cells, &ni, &nj);
      status = naca_mesh_generate(ni, nj, NACA_MESH_DEFAULT_RADIUS, &g);
    }
    if (status == 0 && opt.shuffle >= 0)
      status = naca_mesh_shuffle(&g, (unsigned long)opt.shuffle);
    header[0] = status == 0 ? 0 : 1;
    header[1] = g.nnode;
    header[2] = g.ncell;
    header[3] = g.nedge;
    header[4] = g.nbedge;
  }
  MPI_Bcast(header, 5, MPI_INT, MPI_ROOT, MPI_COMM_WORLD);
  if (header[0] != 0) {
    op_printf("no mesh, stopping\n");
    op_exit();
    return 1;
  }
  const int g_nnode = header[1], g_ncell = header[2], g_nedge = header[3],
            g_nbedge = header[4];
  op_printf(" nodes %d, cells %d, edges %d, boundary edges %d \n", g_nnode,
            g_ncell, g_nedge, g_nbedge);

  // cell centroids (x, y, 0) for the inertial partitioner, built from the
  // global mesh on rank 0
  std::vector<double> g_centroid;
  if (rank == MPI_ROOT && part.needs_centroids) {
    g_centroid.assign(3 * (size_t)g_ncell, 0.0);
    for (int c = 0; c < g_ncell; ++c) {
      for (int k = 0; k < 4; ++k) {
        const int n = g.cell[4 * c + k];
        g_centroid[3 * c + 0] += 0.25 * g.x[2 * n + 0];
        g_centroid[3 * c + 1] += 0.25 * g.x[2 * n + 1];
      }
    }
  }

  // ---- this rank's blocks -----------------------------------------------------
  const int nnode = block_size(g_nnode, nranks, rank);
  const int ncell = block_size(g_ncell, nranks, rank);
  const int nedge = block_size(g_nedge, nranks, rank);
  const int nbedge = block_size(g_nbedge, nranks, rank);
  const int cell0 = block_start(g_ncell, nranks, rank);

  std::vector<double> x = scatter_rows(g.x, g_nnode, 2, rank, nranks);
  std::vector<int> cell = scatter_rows(g.cell, g_ncell, 4, rank, nranks);
  std::vector<int> edge = scatter_rows(g.edge, g_nedge, 2, rank, nranks);
  std::vector<int> ecell = scatter_rows(g.ecell, g_nedge, 2, rank, nranks);
  std::vector<int> bedge = scatter_rows(g.bedge, g_nbedge, 2, rank, nranks);
  std::vector<int> becell = scatter_rows(g.becell, g_nbedge, 1, rank, nranks);
  std::vector<int> bound = scatter_rows(g.bound, g_nbedge, 1, rank, nranks);
  std::vector<double> centroid;
  if (part.needs_centroids)
    centroid = scatter_rows(g_centroid.data(), g_ncell, 3, rank, nranks);
  naca_mesh_free(&g); // the global copy is no longer needed
  g_centroid.clear();

  {
    // every rank's block sizes, gathered for one line per rank on rank 0
    int mine[4] = {nnode, ncell, nedge, nbedge};
    std::vector<int> all(4 * (size_t)nranks);
    MPI_Gather(mine, 4, MPI_INT, all.data(), 4, MPI_INT, MPI_ROOT,
               MPI_COMM_WORLD);
    for (int r = 0; r < nranks; ++r)
      op_printf("ranks: nodes, cells, edges, bedges on process %d = %d, %d, "
                "%d, %d\n",
                r, all[4 * r], all[4 * r + 1], all[4 * r + 2],
                all[4 * r + 3]);
  }

  op_printf("initialising flow field \n");
  airfoil_set_constants();

  std::vector<double> q(4 * (size_t)ncell), qold(4 * (size_t)ncell, 0.0),
      res(4 * (size_t)ncell, 0.0), adt((size_t)ncell, 0.0);
  for (int c = 0; c < ncell; ++c)
    for (int k = 0; k < 4; ++k)
      q[4 * c + k] = qinf[k];

  // target rank of every cell for EXTERNAL: the block distribution shifted
  // by one rank
  std::vector<int> owner;
  if (part.needs_owner) {
    owner.resize((size_t)ncell);
    for (int c = 0; c < ncell; ++c) {
      const long long gc = cell0 + c;
      owner[c] = (int)((gc * nranks / g_ncell + 1) % nranks);
    }
  }

  // ---- declarations: local sizes, global map indices -------------------------
  op_set nodes = op_decl_set(nnode, "nodes");
  op_set edges = op_decl_set(nedge, "edges");
  op_set bedges = op_decl_set(nbedge, "bedges");
  op_set cells = op_decl_set(ncell, "cells");

  op_map pedge = op_decl_map(edges, nodes, 2, edge.data(), "pedge");
  op_map pecell = op_decl_map(edges, cells, 2, ecell.data(), "pecell");
  op_map pbedge = op_decl_map(bedges, nodes, 2, bedge.data(), "pbedge");
  op_map pbecell = op_decl_map(bedges, cells, 1, becell.data(), "pbecell");
  op_map pcell = op_decl_map(cells, nodes, 4, cell.data(), "pcell");

  op_dat p_bound = op_decl_dat(bedges, 1, "int", bound.data(), "p_bound");
  op_dat p_x = op_decl_dat(nodes, 2, "double", x.data(), "p_x");
  op_dat p_q = op_decl_dat(cells, 4, "double", q.data(), "p_q");
  op_dat p_qold = op_decl_dat(cells, 4, "double", qold.data(), "p_qold");
  op_dat p_adt = op_decl_dat(cells, 1, "double", adt.data(), "p_adt");
  op_dat p_res = op_decl_dat(cells, 4, "double", res.data(), "p_res");

  op_dat coords = p_x;
  if (part.needs_centroids)
    coords = op_decl_dat(cells, 3, "double", centroid.data(), "p_centroid");
  if (part.needs_owner)
    coords = op_decl_dat(cells, 1, "int", owner.data(), "p_owner");

  op_decl_const(1, "double", &gam);
  op_decl_const(1, "double", &gm1);
  op_decl_const(1, "double", &cfl);
  op_decl_const(1, "double", &eps);
  op_decl_const(1, "double", &mach);
  op_decl_const(1, "double", &alpha);
  op_decl_const(4, "double", qinf);

  // --renumber: asked for before partitioning, applied to each rank's
  // local mesh when op_partition has built it
  if (opt.renumber)
    op_renumber(pecell);

  op_printf("partitioning with %s: op_partition(\"%s\", \"%s\", cells, "
            "pecell, %s)\n",
            mopt.part, part.lib, part.routine,
            part.needs_centroids ? "p_centroid"
                                 : (part.needs_owner ? "p_owner" : "p_x"));
  op_partition(part.lib, part.routine, cells, pecell, coords);

  if (opt.diags > 1)
    op_diagnostic_output();

  // ---- time marching (as airfoil.cpp) -----------------------------------------
  FILE *rms_out = nullptr;
  if (mopt.rms_file != nullptr && op_is_root()) {
    rms_out = fopen(mopt.rms_file, "w");
    if (rms_out == nullptr)
      fprintf(stderr, "cannot write %s\n", mopt.rms_file);
  }

  double cpu_t1, cpu_t2, wall_t1, wall_t2;
  op_timers(&cpu_t1, &wall_t1);

  const AirfoilData a = {edges, bedges, cells,  pedge, pecell, pbedge, pbecell, pcell,
                         p_bound, p_x, p_q, p_qold, p_adt, p_res};
  double rms = 0.0;

  for (int iter = 1; iter <= opt.iters; ++iter) {
    rms = airfoil_step(a);
    rms = sqrt(rms / (double)g_ncell);
    if (rms_out != nullptr)
      fprintf(rms_out, "%d %.17e\n", iter, rms);
    if (iter % 100 == 0)
      op_printf(" %d  %10.5e \n", iter, rms);
  }

  op_timers(&cpu_t2, &wall_t2);
  if (rms_out != nullptr)
    fclose(rms_out);

  // ---- results ----------------------------------------------------------------
  // the whole q in the original global order, on every rank
  std::vector<double> qfinal(4 * (size_t)g_ncell + 4);
  op_fetch_data_idx(p_q, qfinal.data(), 0, g_ncell - 1);
  double qsum[4] = {0.0, 0.0, 0.0, 0.0};
  for (int c = 0; c < g_ncell; ++c)
    for (int k = 0; k < 4; ++k)
      qsum[k] += qfinal[4 * c + k];
  op_printf(" q sums: %.15e %.15e %.15e %.15e \n", qsum[0], qsum[1], qsum[2],
            qsum[3]);

  if (opt.out_file != nullptr) {
    op_print_dat_to_binfile(p_q, opt.out_file);
    op_printf(" wrote final q to %s \n", opt.out_file);
  }

  // consistency: global sizes, this rank's block from op_fetch_data equals
  // its slice of the gathered array, every rank gathered the same q
  int bad = 0;
  const long long sizes[4] = {(long long)op_get_size(nodes),
                              (long long)op_get_size(cells),
                              (long long)op_get_size(edges),
                              (long long)op_get_size(bedges)};
  const long long expect[4] = {g_nnode, g_ncell, g_nedge, g_nbedge};
  for (int s = 0; s < 4; ++s)
    if (sizes[s] != expect[s]) {
      printf("rank %d: op_get_size of set %d is %lld, expected %lld\n", rank,
             s, sizes[s], expect[s]);
      bad = 1;
    }
  std::vector<double> qmine(4 * (size_t)ncell + 4);
  op_fetch_data(p_q, qmine.data());
  if (ncell > 0 && memcmp(qmine.data(), &qfinal[4 * (size_t)cell0],
                          4 * (size_t)ncell * sizeof(double)) != 0) {
    printf("rank %d: op_fetch_data block differs from op_fetch_data_idx\n",
           rank);
    bad = 1;
  }
  double qsum0[4];
  memcpy(qsum0, qsum, sizeof qsum);
  MPI_Bcast(qsum0, 4, MPI_DOUBLE, MPI_ROOT, MPI_COMM_WORLD);
  if (memcmp(qsum0, qsum, sizeof qsum) != 0) {
    printf("rank %d: gathered q differs from rank 0's\n", rank);
    bad = 1;
  }
  int any_bad = 0;
  MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  op_printf("checks: %s\n", any_bad ? "FAILED" : "OK");

  op_timing_output();
  op_printf("Max total runtime = %f\n", wall_t2 - wall_t1);

  op_exit();
  return any_bad ? 1 : 0;
}
