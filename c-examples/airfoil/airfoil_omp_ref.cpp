// airfoil_omp_ref.cpp -- the airfoil solver of airfoil_ref.cpp parallelised
// by hand with OpenMP, without OP2: the baseline a competent HPC developer
// would write for a shared-memory machine.
//
//   direct loops (save_soln, adt_calc, update):
//       #pragma omp parallel for; update's rms with reduction(+:rms)
//       (adt_calc only reads through cell -> node, so it is direct for us)
//   indirect increments (res_calc over edges, bres_calc over boundary edges):
//       the edges are cut into blocks of BLOCK consecutive edges; the blocks
//       are coloured greedily so that no two blocks of one colour increment
//       the same cell; then, colour after colour,
//       #pragma omp parallel for schedule(static) over that colour's blocks,
//       each block running its edges in order.
//
// The colouring is built once before the time loop.  It is not part of the
// reported runtime; it is timed on its own and printed.
//
// Same command line and output as airfoil_ref (see airfoil_setup.h), plus one
// line describing the threads and the colouring.  The rms history and q sums
// agree with airfoil_ref to rounding (the increments of a cell are summed in
// another order, and rms is a parallel reduction).
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>

#include <vector>

// flow constants read by the kernels
double gam, gm1, cfl, eps, mach, alpha, qinf[4];

#include "airfoil_setup.h"

#include "adt_calc.h"
#include "bres_calc.h"
#include "res_calc.h"
#include "save_soln.h"
#include "update.h"

// consecutive edges per block
static const int BLOCK = 256;

static double wall_seconds() {
  struct timeval tv;
  gettimeofday(&tv, nullptr);
  return (double)tv.tv_sec + 1.0e-6 * (double)tv.tv_usec;
}

// same layout as op_print_dat_to_binfile: int32 count, int32 dim, raw data
static int write_binfile(const char *path, const double *data, int count,
                         int dim) {
  FILE *fp = fopen(path, "wb");
  if (fp == nullptr)
    return -1;
  int32_t head[2] = {(int32_t)count, (int32_t)dim};
  size_t n = (size_t)count * (size_t)dim;
  int ok = fwrite(head, sizeof(int32_t), 2, fp) == 2 &&
           fwrite(data, sizeof(double), n, fp) == n;
  return (fclose(fp) == 0 && ok) ? 0 : -1;
}

// Blocks of an edge loop grouped by colour: the blocks of colour c are
// block_ids[colour_start[c] .. colour_start[c+1]); block b covers the edges
// [b*BLOCK, min((b+1)*BLOCK, nelem)).
struct BlockColouring {
  int nelem = 0;
  int nblocks = 0;
  int ncolours = 0;
  std::vector<int> colour_start;
  std::vector<int> block_ids;

  int block_begin(int b) const { return b * BLOCK; }
  int block_end(int b) const {
    const int e = (b + 1) * BLOCK;
    return e < nelem ? e : nelem;
  }
};

// Greedy colouring of the blocks of a loop over nelem elements whose element
// e increments the cells targets[e*per + k], k < per (ntarget cells).  Blocks
// are visited in order and take the lowest colour that none of their cells
// already carries.  Colours are handled 64 at a time with one bit mask per
// cell; blocks that find all 64 colours of a round taken wait for the next.
static BlockColouring colour_blocks(int nelem, const int *targets, int per,
                                    int ntarget) {
  BlockColouring bc;
  bc.nelem = nelem;
  bc.nblocks = (nelem + BLOCK - 1) / BLOCK;
  std::vector<int> colour(bc.nblocks, -1);
  std::vector<uint64_t> used(ntarget);
  int remaining = bc.nblocks;
  for (int round = 0; remaining > 0; ++round) {
    std::fill(used.begin(), used.end(), 0);
    for (int b = 0; b < bc.nblocks; ++b) {
      if (colour[b] >= 0)
        continue;
      const int *t = targets + (size_t)bc.block_begin(b) * per;
      const int *t_end = targets + (size_t)bc.block_end(b) * per;
      uint64_t taken = 0;
      for (const int *p = t; p < t_end; ++p)
        taken |= used[*p];
      if (taken == ~(uint64_t)0)
        continue; // no colour of this round is free
      const int bit = __builtin_ctzll(~taken);
      const uint64_t mine = (uint64_t)1 << bit;
      for (const int *p = t; p < t_end; ++p)
        used[*p] |= mine;
      colour[b] = 64 * round + bit;
      if (colour[b] + 1 > bc.ncolours)
        bc.ncolours = colour[b] + 1;
      --remaining;
    }
  }
  // counting sort of the blocks by colour (block order kept within a colour)
  bc.colour_start.assign(bc.ncolours + 1, 0);
  for (int b = 0; b < bc.nblocks; ++b)
    ++bc.colour_start[colour[b] + 1];
  for (int c = 0; c < bc.ncolours; ++c)
    bc.colour_start[c + 1] += bc.colour_start[c];
  std::vector<int> next(bc.colour_start.begin(), bc.colour_start.end() - 1);
  bc.block_ids.resize(bc.nblocks);
  for (int b = 0; b < bc.nblocks; ++b)
    bc.block_ids[next[colour[b]]++] = b;
  return bc;
}

int main(int argc, char **argv) {
  AirfoilOptions opt = airfoil_parse_args(argc, argv);

  printf("%s grid \n", opt.mesh_file ? "reading in" : "generating");
  naca_mesh m;
  airfoil_get_mesh(opt, &m);
  printf(" nodes %d, cells %d, edges %d, boundary edges %d \n", m.nnode,
         m.ncell, m.nedge, m.nbedge);

  printf("initialising flow field \n");
  airfoil_set_constants();

  const int ncell = m.ncell, nedge = m.nedge, nbedge = m.nbedge;
  const double *x = m.x;
  const int *cell = m.cell, *edge = m.edge, *ecell = m.ecell;
  const int *bedge = m.bedge, *becell = m.becell, *bound = m.bound;

  // set-up: block colourings of the two incrementing loops (not in runtime)
  const double tc0 = wall_seconds();
  const BlockColouring ec = colour_blocks(nedge, ecell, 2, ncell);
  const BlockColouring bc = colour_blocks(nbedge, becell, 1, ncell);
  const double tc1 = wall_seconds();
  printf(" openmp: %d threads; blocks of %d edges; res_calc %d blocks in %d "
         "colours, bres_calc %d blocks in %d colours; colouring took %.6f s \n",
         omp_get_max_threads(), BLOCK, ec.nblocks, ec.ncolours, bc.nblocks,
         bc.ncolours, tc1 - tc0);

  // first touch by the threads that use the data in the direct loops
  std::vector<double> q(4 * (size_t)ncell), qold(4 * (size_t)ncell),
      res(4 * (size_t)ncell), adt((size_t)ncell);
#pragma omp parallel for schedule(static)
  for (int c = 0; c < ncell; ++c) {
    for (int k = 0; k < 4; ++k) {
      q[4 * (size_t)c + k] = qinf[k];
      qold[4 * (size_t)c + k] = 0.0;
      res[4 * (size_t)c + k] = 0.0;
    }
    adt[c] = 0.0;
  }

  double *qp = q.data(), *qoldp = qold.data(), *resp = res.data(),
         *adtp = adt.data();

  double t0 = wall_seconds();
  double rms = 0.0;

  for (int iter = 1; iter <= opt.iters; ++iter) {
#pragma omp parallel for schedule(static)
    for (int c = 0; c < ncell; ++c)
      save_soln(&qp[4 * c], &qoldp[4 * c]);

    for (int stage = 0; stage < 2; ++stage) {
#pragma omp parallel for schedule(static)
      for (int c = 0; c < ncell; ++c) {
        const int *cn = cell + 4 * c;
        adt_calc(x + 2 * cn[0], x + 2 * cn[1], x + 2 * cn[2], x + 2 * cn[3],
                 &qp[4 * c], &adtp[c]);
      }

      for (int col = 0; col < ec.ncolours; ++col) {
        const int first = ec.colour_start[col], last = ec.colour_start[col + 1];
#pragma omp parallel for schedule(static)
        for (int i = first; i < last; ++i) {
          const int b = ec.block_ids[i];
          const int end = ec.block_end(b);
          for (int e = ec.block_begin(b); e < end; ++e) {
            const int n0 = edge[2 * e], n1 = edge[2 * e + 1];
            const int c0 = ecell[2 * e], c1 = ecell[2 * e + 1];
            res_calc(x + 2 * n0, x + 2 * n1, &qp[4 * c0], &qp[4 * c1],
                     &adtp[c0], &adtp[c1], &resp[4 * c0], &resp[4 * c1]);
          }
        }
      }

      for (int col = 0; col < bc.ncolours; ++col) {
        const int first = bc.colour_start[col], last = bc.colour_start[col + 1];
#pragma omp parallel for schedule(static)
        for (int i = first; i < last; ++i) {
          const int b = bc.block_ids[i];
          const int end = bc.block_end(b);
          for (int e = bc.block_begin(b); e < end; ++e) {
            const int n0 = bedge[2 * e], n1 = bedge[2 * e + 1];
            const int c = becell[e];
            bres_calc(x + 2 * n0, x + 2 * n1, &qp[4 * c], &adtp[c],
                      &resp[4 * c], &bound[e]);
          }
        }
      }

      rms = 0.0;
#pragma omp parallel for schedule(static) reduction(+ : rms)
      for (int c = 0; c < ncell; ++c)
        update(&qoldp[4 * c], &qp[4 * c], &resp[4 * c], &adtp[c], &rms);
    }

    rms = sqrt(rms / (double)ncell);
    if (iter % 100 == 0)
      printf(" %d  %10.5e \n", iter, rms);
  }

  double t1 = wall_seconds();

  double qsum[4] = {0.0, 0.0, 0.0, 0.0};
  for (int c = 0; c < ncell; ++c)
    for (int k = 0; k < 4; ++k)
      qsum[k] += q[4 * c + k];
  printf(" q sums: %.15e %.15e %.15e %.15e \n", qsum[0], qsum[1], qsum[2],
         qsum[3]);

  if (opt.out_file != nullptr) {
    if (write_binfile(opt.out_file, q.data(), ncell, 4) != 0) {
      fprintf(stderr, "cannot write %s\n", opt.out_file);
      return 1;
    }
    printf(" wrote final q to %s \n", opt.out_file);
  }

  printf("Max total runtime = %f\n", t1 - t0);
  naca_mesh_free(&m);
  return 0;
}
