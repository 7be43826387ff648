/*
 * plan_check.c -- the execution-plan ABI (op_rt_support.h) seen from C, the
 * way generated OpenMP/CUDA code sees it.
 *
 * On a random mesh with local connectivity (edges -> nodes, dim 2; edges ->
 * cells, dim 1) it asks op_plan_get for the plan of an edge loop with
 *   x  (nodes, dim 2) OP_READ via both columns of pedge     group 0
 *   r  (nodes, dim 1) OP_INC  via both columns of pedge     group 1
 *   c  (cells, dim 2) OP_RW   via pecell                    group 2
 *   w  (edges, dim 1) OP_READ direct, and an OP_INC global,
 * runs op_plan_check on it, and then checks the plan's arrays with plain C
 * loops: blocks tile the set, blkmap is a permutation of the blocks grouped
 * by colour, no two blocks of one colour (and no two elements of one thread
 * colour in a block) modify the same node or cell, and the staged lists
 * round-trip: ind_maps[s][ind_offs[s + b*ninds_staged] + loc_maps[m][n]] is
 * map[n*dim + idx] for every element n of block b.  It checks the plan cache
 * (same pointer for the same loop, Plan->count counting the calls, a new plan
 * when the part size, an access or the name differs) and finally executes the
 * loop colour by colour with OpenMP, the global reduced through per-thread
 * slots, and compares with a plain sequential loop (all values are small
 * integers, so any summation order gives the same bits).
 *
 * Prints "PASS <check>" / "FAIL <check>" lines; exit status 1 on failure.
 * Other modes (argv[1]):
 *   corrupt       swap two blkmap entries of different colours and call
 *                 op_plan_check, which must stop the program;
 *   color2        an OP_COLOR2 plan of the same loop: one block, elements
 *                 sorted by colour (col_reord, color2_offsets = col_offsets[0]),
 *                 conflict-free colours, and an execution colour by colour;
 *   color2_check  op_plan_check on that OP_COLOR2 plan;
 *   empty         a plan (and op_plan_check) for an indirect loop over an
 *                 empty set.
 *
 * Build with -fopenmp; works with libop2_seq and libop2_openmp.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "op_lib_cpp.h"

#define NNODE 700
#define NEDGE 2600
#define NCELL 450
#define PART 64
#define NARGS 7
#define NINDS 3
#define SLOT 64

static unsigned long long rng_state = 0x9E3779B97F4A7C15ULL;
static int rnd(int n) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (int)((rng_state >> 11) % (unsigned long long)n);
}

static int failures = 0;
static void report(const char *check, int ok) {
  printf("%s %s\n", ok ? "PASS" : "FAIL", check);
  if (!ok)
    failures++;
}

static int max_threads(void) {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}
static int thread_num(void) {
#ifdef _OPENMP
  return omp_get_thread_num();
#else
  return 0;
#endif
}

/* the loop's kernel: integer-valued doubles, so results are order-free */
static void edge_kernel(const double *x0, const double *x1, double *r0,
                        double *r1, double *c, const double *w, double *sum) {
  const double f = (*w) * (x1[0] - x0[0]);
  *r0 += f;
  *r1 -= f;
  c[0] += *w;
  c[1] = c[1] + x0[1] - x1[1];
  *sum += (*w) * x0[1];
}

/* target of indirect argument m for element n */
static int target(const op_arg *a, int n) {
  return a->map_data[n * a->map->dim + a->idx];
}

/* does argument m modify its indirect target (OP_INC / OP_RW / OP_WRITE)? */
static int modifies(const op_arg *a) {
  return a->map != NULL && a->acc != OP_READ;
}

static int arrays_match_args(const op_plan *p, const op_arg *args) {
  for (int m = 0; m < NARGS; m++)
    if (p->maps[m] != args[m].map || p->dats[m] != args[m].dat ||
        p->idxs[m] != args[m].idx || p->accs[m] != args[m].acc ||
        p->optflags[m] != 1)
      return 0;
  return 1;
}

static int blocks_tile(const op_plan *p, int set_size, int part) {
  int next = 0;
  for (int b = 0; b < p->nblocks; b++) {
    if (p->offset[b] != next || p->nelems[b] <= 0 || p->nelems[b] > part)
      return 0;
    next += p->nelems[b];
  }
  return next == set_size;
}

static int blkmap_is_permutation(const op_plan *p) {
  int ok = 1;
  char *seen = (char *)calloc((size_t)p->nblocks, 1);
  for (int i = 0; i < p->nblocks; i++) {
    int b = p->blkmap[i];
    if (b < 0 || b >= p->nblocks || seen[b])
      ok = 0;
    else
      seen[b] = 1;
  }
  free(seen);
  return ok;
}

/* ncolblk partitions blkmap into non-empty groups, each listing its blocks
 * in increasing order */
static int colour_groups(const op_plan *p) {
  int total = 0;
  for (int col = 0; col < p->ncolors; col++) {
    if (p->ncolblk[col] <= 0)
      return 0;
    for (int i = 1; i < p->ncolblk[col]; i++)
      if (p->blkmap[total + i] <= p->blkmap[total + i - 1])
        return 0;
    total += p->ncolblk[col];
  }
  return total == p->nblocks;
}

/* no two blocks of one colour modify the same node or cell; owner[t] holds
 * (colour, block) of the last block of the current colour that touched t */
static int colours_conflict_free(const op_plan *p, const op_arg *args,
                                 int ntarget) {
  int ok = 1;
  int *owner_col = (int *)malloc(sizeof(int) * (size_t)ntarget * NINDS);
  int *owner_blk = (int *)malloc(sizeof(int) * (size_t)ntarget * NINDS);
  const int inds[NARGS] = {0, 0, 1, 1, 2, -1, -1};
  for (int i = 0; i < ntarget * NINDS; i++)
    owner_col[i] = -1;
  int block_offset = 0;
  for (int col = 0; col < p->ncolors; col++) {
    for (int i = 0; i < p->ncolblk[col]; i++) {
      const int b = p->blkmap[block_offset + i];
      for (int n = p->offset[b]; n < p->offset[b] + p->nelems[b]; n++)
        for (int m = 0; m < NARGS; m++) {
          if (!modifies(&args[m]))
            continue;
          const int slot = inds[m] * ntarget + target(&args[m], n);
          if (owner_col[slot] == col && owner_blk[slot] != b)
            ok = 0;
          owner_col[slot] = col;
          owner_blk[slot] = b;
        }
    }
    block_offset += p->ncolblk[col];
  }
  free(owner_col);
  free(owner_blk);
  return ok;
}

/* inside each block, elements of one thread colour modify distinct targets */
static int thread_colours_conflict_free(const op_plan *p, const op_arg *args) {
  for (int b = 0; b < p->nblocks; b++) {
    const int s = p->offset[b], e = s + p->nelems[b];
    if (p->nthrcol[b] < 1)
      return 0;
    for (int n = s; n < e; n++) {
      if (p->thrcol[n] < 0 || p->thrcol[n] >= p->nthrcol[b])
        return 0;
      for (int n2 = s; n2 < n; n2++) {
        if (p->thrcol[n2] != p->thrcol[n])
          continue;
        for (int m = 0; m < NARGS; m++)
          for (int m2 = 0; m2 < NARGS; m2++)
            if (modifies(&args[m]) && modifies(&args[m2]) &&
                args[m].dat == args[m2].dat &&
                target(&args[m], n) == target(&args[m2], n2))
              return 0;
      }
    }
  }
  return 1;
}

/* staged lists: sorted, distinct, and loc_maps point back at the map */
static int staged_lists_round_trip(const op_plan *p, const op_arg *args,
                                   const int *inds) {
  const int nst = p->ninds_staged;
  for (int m = 0; m < NARGS; m++) {
    if (inds[m] < 0)
      continue;
    const int s = p->inds_staged[m];
    if (s < 0 || s >= nst || p->loc_maps[m] == NULL)
      return 0;
    for (int b = 0; b < p->nblocks; b++) {
      const int off = p->ind_offs[s + b * nst];
      const int size = p->ind_sizes[s + b * nst];
      for (int i = 1; i < size; i++)
        if (p->ind_maps[s][off + i] <= p->ind_maps[s][off + i - 1])
          return 0;
      for (int n = p->offset[b]; n < p->offset[b] + p->nelems[b]; n++) {
        const int loc = p->loc_maps[m][n];
        if (loc < 0 || loc >= size)
          return 0;
        if (p->ind_maps[s][off + loc] != target(&args[m], n))
          return 0;
      }
    }
  }
  /* nindirect[g] = total length of group g's lists over all blocks */
  for (int m = 0; m < NARGS; m++) {
    if (inds[m] < 0)
      continue;
    const int s = p->inds_staged[m];
    long total = 0;
    for (int b = 0; b < p->nblocks; b++)
      total += p->ind_sizes[s + b * nst];
    if (total != p->nindirect[inds[m]])
      return 0;
  }
  return 1;
}

/* is `p` one of the OP_plans entries? */
static int in_op_plans(const op_plan *p) {
  for (int i = 0; i < OP_plan_index; i++)
    if (&OP_plans[i] == p)
      return 1;
  return 0;
}

/* the mesh and the initial data (the plain-loop reference updates these) */
static int pedge_v[2 * NEDGE], pecell_v[NEDGE];
static double x_v[2 * NNODE], r_v[NNODE], c_v[2 * NCELL], w_v[NEDGE];

/* element n of the edge loop, as a generated stub indexes its arguments */
static void run_element(const op_arg *args, int n, double *sum) {
  const int map0idx = args[0].map_data[n * args[0].map->dim + 0];
  const int map1idx = args[0].map_data[n * args[0].map->dim + 1];
  const int map2idx = args[4].map_data[n * args[4].map->dim + 0];
  edge_kernel((double *)args[0].data + 2 * map0idx,
              (double *)args[1].data + 2 * map1idx,
              (double *)args[2].data + 1 * map0idx,
              (double *)args[3].data + 1 * map1idx,
              (double *)args[4].data + 2 * map2idx,
              (double *)args[5].data + 1 * n, sum);
}

/* after a run of the edge loop: r, c and the global equal a plain loop's */
static void check_against_plain(const char *check, op_dat r, op_dat c,
                                double sum) {
  double ref_sum = 0.0;
  for (int e = 0; e < NEDGE; e++)
    edge_kernel(&x_v[2 * pedge_v[2 * e]], &x_v[2 * pedge_v[2 * e + 1]],
                &r_v[pedge_v[2 * e]], &r_v[pedge_v[2 * e + 1]],
                &c_v[2 * pecell_v[e]], &w_v[e], &ref_sum);
  static double r_got[NNODE], c_got[2 * NCELL];
  op_fetch_data(r, r_got);
  op_fetch_data(c, c_got);
  printf(" executed with %d threads: sum %.1f (plain loop %.1f)\n",
         max_threads(), sum, ref_sum);
  report(check, sum == ref_sum && memcmp(r_got, r_v, sizeof r_v) == 0 &&
                    memcmp(c_got, c_v, sizeof c_v) == 0);
}

/* OP_COLOR2 (one block, elements sorted by colour into col_reord, colour
 * boundaries in col_offsets[0]): the layout, conflicts, and an execution
 * colour by colour */
static void color2_checks(op_set edges, op_dat r, op_dat c, op_arg *args,
                          int *inds) {
  op_plan *p = op_plan_get_stage("edge_loop_c2", edges, 0, NARGS, args, NINDS,
                                 inds, OP_COLOR2);
  printf(" OP_COLOR2 plan: %d blocks, %d colours\n", p->nblocks, p->ncolors);
  report("OP_COLOR2: one block of the whole set",
         p->nblocks == 1 && p->offset[0] == 0 && p->nelems[0] == NEDGE);
  report("OP_COLOR2: ncolors = element colours",
         p->ncolors >= 2 && p->ncolors == p->nthrcol[0]);
  const int *off = p->color2_offsets;
  int ok = off != NULL && off == p->col_offsets[0] && off[0] == 0 &&
           off[p->ncolors] == NEDGE;
  for (int col = 0; ok && col < p->ncolors; col++)
    ok = off[col] < off[col + 1];
  report("OP_COLOR2: color2_offsets = col_offsets[0], 0 .. set size", ok);
  {
    char *seen = (char *)calloc(NEDGE, 1);
    ok = p->col_reord != NULL;
    for (int i = 0; ok && i < NEDGE; i++) {
      const int n = p->col_reord[i];
      ok = n >= 0 && n < NEDGE && !seen[n];
      if (ok)
        seen[n] = 1;
    }
    free(seen);
    report("OP_COLOR2: col_reord is a permutation", ok);
  }
  if (failures > 0)
    return;
  {
    /* stamp[dat slot] = colour + 1 of the last element that modified it */
    int *stamp = (int *)calloc((size_t)NNODE * NINDS, sizeof(int));
    int *by = (int *)malloc(sizeof(int) * (size_t)NNODE * NINDS);
    ok = 1;
    for (int col = 0; col < p->ncolors; col++)
      for (int i = off[col]; i < off[col + 1]; i++) {
        const int n = p->col_reord[i];
        for (int m = 0; m < NARGS; m++) {
          if (!modifies(&args[m]))
            continue;
          const int slot = inds[m] * NNODE + target(&args[m], n);
          if (stamp[slot] == col + 1 && by[slot] != n)
            ok = 0;
          stamp[slot] = col + 1;
          by[slot] = n;
        }
      }
    free(stamp);
    free(by);
    report("OP_COLOR2: colours conflict-free", ok);
  }
  {
    const int nthreads = max_threads();
    double sum = *(double *)args[6].data;
    double *sum_l = (double *)calloc((size_t)nthreads * SLOT, sizeof(double));
    op_mpi_halo_exchanges(edges, NARGS, args);
    for (int col = 0; col < p->ncolors; col++) {
      if (col == p->ncolors_core)
        op_mpi_wait_all(NARGS, args);
      const int start = off[col], end = off[col + 1];
#pragma omp parallel for
      for (int i = start; i < end; i++)
        run_element(args, p->col_reord[i], &sum_l[(size_t)thread_num() * SLOT]);
    }
    for (int t = 0; t < nthreads; t++)
      sum += sum_l[(size_t)t * SLOT];
    *(double *)args[6].data = sum;
    op_mpi_reduce_double(&args[6], (double *)args[6].data);
    op_mpi_set_dirtybit(NARGS, args);
    free(sum_l);
    check_against_plain("OP_COLOR2: execution = plain loop", r, c, sum);
  }
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "all";
  op_init(argc, argv, 0);

  /* mesh: edge e joins nodes near e*NNODE/NEDGE (some edges reach far) */
  for (int e = 0; e < NEDGE; e++) {
    const int base = (int)(((long)e * NNODE) / NEDGE);
    int n0 = (base + rnd(6)) % NNODE;
    int n1 = (rnd(40) == 0) ? rnd(NNODE) : (base + 1 + rnd(12)) % NNODE;
    if (n1 == n0)
      n1 = (n0 + 1) % NNODE;
    pedge_v[2 * e] = n0;
    pedge_v[2 * e + 1] = n1;
    const int cb = (int)(((long)e * NCELL) / NEDGE);
    pecell_v[e] = (rnd(50) == 0) ? rnd(NCELL) : (cb + rnd(3)) % NCELL;
    w_v[e] = (double)(rnd(7) - 3);
  }
  for (int n = 0; n < NNODE; n++) {
    x_v[2 * n] = (double)(rnd(100) - 50);
    x_v[2 * n + 1] = (double)rnd(20);
    r_v[n] = (double)rnd(10);
  }
  for (int c = 0; c < NCELL; c++) {
    c_v[2 * c] = 0.0;
    c_v[2 * c + 1] = (double)rnd(5);
  }

  op_set nodes = op_decl_set(NNODE, "nodes");
  op_set edges = op_decl_set(NEDGE, "edges");
  op_set cells = op_decl_set(NCELL, "cells");
  op_map pedge = op_decl_map(edges, nodes, 2, pedge_v, "pedge");
  op_map pecell = op_decl_map(edges, cells, 1, pecell_v, "pecell");
  op_dat x = op_decl_dat(nodes, 2, "double", x_v, "x");
  op_dat r = op_decl_dat(nodes, 1, "double", r_v, "r");
  op_dat c = op_decl_dat(cells, 2, "double", c_v, "c");
  op_dat w = op_decl_dat(edges, 1, "double", w_v, "w");
  double sum = 0.0;

  op_arg args[NARGS];
  args[0] = op_arg_dat(x, 0, pedge, 2, "double", OP_READ);
  args[1] = op_arg_dat(x, 1, pedge, 2, "double", OP_READ);
  args[2] = op_arg_dat(r, 0, pedge, 1, "double", OP_INC);
  args[3] = op_arg_dat(r, 1, pedge, 1, "double", OP_INC);
  args[4] = op_arg_dat(c, 0, pecell, 2, "double", OP_RW);
  args[5] = op_arg_dat(w, -1, OP_ID, 1, "double", OP_READ);
  args[6] = op_arg_gbl(&sum, 1, "double", OP_INC);
  int inds[NARGS] = {0, 0, 1, 1, 2, -1, -1};

  if (strcmp(mode, "color2") == 0) {
    color2_checks(edges, r, c, args, inds);
    op_exit();
    return failures == 0 ? 0 : 1;
  }
  if (strcmp(mode, "color2_check") == 0) {
    op_plan *p = op_plan_get_stage("edge_loop_c2", edges, 0, NARGS, args,
                                   NINDS, inds, OP_COLOR2);
    op_plan_check(*p, NINDS, inds);
    report("op_plan_check (OP_COLOR2)", 1);
    op_exit();
    return failures == 0 ? 0 : 1;
  }
  if (strcmp(mode, "empty") == 0) {
    /* an indirect loop over an empty set: a plan without blocks */
    static int no_map[2] = {0, 0};
    op_set none = op_decl_set(0, "none");
    op_map pnone = op_decl_map(none, nodes, 2, no_map, "pnone");
    op_arg ea[2];
    int einds[2] = {0, 1};
    ea[0] = op_arg_dat(x, 0, pnone, 2, "double", OP_READ);
    ea[1] = op_arg_dat(r, 1, pnone, 1, "double", OP_INC);
    op_plan *p = op_plan_get("empty_loop", none, 0, 2, ea, 2, einds);
    report("empty set: no blocks, no colours",
           p->nblocks == 0 && p->ncolors == 0);
    op_plan_check(*p, 2, einds);
    report("op_plan_check (empty set)", 1);
    op_exit();
    return failures == 0 ? 0 : 1;
  }

  op_plan *plan = op_plan_get("edge_loop", edges, PART, NARGS, args, NINDS, inds);

  if (strcmp(mode, "corrupt") == 0) {
    /* move a block into the wrong colour group */
    if (plan->ncolors < 2) {
      printf("FAIL need two colours\n");
      return 1;
    }
    const int last = plan->nblocks - 1;
    const int tmp = plan->blkmap[0];
    plan->blkmap[0] = plan->blkmap[last];
    plan->blkmap[last] = tmp;
    printf("BEFORE\n");
    fflush(stdout);
    op_plan_check(*plan, NINDS, inds);
    printf("UNREACHABLE\n");
    op_exit();
    return 0;
  }

  op_plan_check(*plan, NINDS, inds);
  report("op_plan_check", 1);

  printf(" plan: %d blocks, %d colours, %d staged groups\n", plan->nblocks,
         plan->ncolors, plan->ninds_staged);
  report("plan header",
         plan->set == edges && plan->nargs == NARGS && plan->ninds == NINDS &&
             plan->ninds_staged == NINDS && plan->part_size == PART &&
             strcmp(plan->name, "edge_loop") == 0 && plan->count == 1 &&
             plan->nblocks == (NEDGE + PART - 1) / PART);
  report("plan arrays mirror args", arrays_match_args(plan, args));
  /* OP2's values on one node: no block reaches past core_size, so
   * ncolors_core stays 0 (generated code's wait at col == ncolors_core
   * happens before colour 0); a loop with an indirect reduction has every
   * colour "owned" */
  printf(" ncolors_core %d, ncolors_owned %d\n", plan->ncolors_core,
         plan->ncolors_owned);
  report("colours: several; core 0, owned all",
         plan->ncolors >= 2 && plan->ncolors < plan->nblocks &&
             plan->ncolors_core == 0 && plan->ncolors_owned == plan->ncolors);
  report("blocks tile the set", blocks_tile(plan, NEDGE, PART));
  report("blkmap is a permutation", blkmap_is_permutation(plan));
  report("blkmap grouped by colour", colour_groups(plan));
  report("colours conflict-free", colours_conflict_free(plan, args, NNODE));
  report("thread colours conflict-free",
         thread_colours_conflict_free(plan, args));
  {
    int same = 1;
    for (int m = 0; m < NARGS; m++)
      same = same && plan->inds_staged[m] == inds[m];
    report("inds_staged = inds (OP_STAGE_ALL)", same);
  }
  report("staged lists round-trip", staged_lists_round_trip(plan, args, inds));
  report("plan is in OP_plans", in_op_plans(plan));

  /* ---- the plan cache ---------------------------------------------------- */
  {
    op_plan *again = op_plan_get("edge_loop", edges, PART, NARGS, args, NINDS, inds);
    report("same loop, same plan", again == plan && plan->count == 2);
    again = op_plan_get_stage("edge_loop", edges, PART, NARGS, args, NINDS,
                              inds, OP_STAGE_ALL);
    op_plan *again2 = op_plan_get_stage_upload(
        "edge_loop", edges, PART, NARGS, args, NINDS, inds, OP_STAGE_ALL, 0);
    report("op_plan_get_stage(_upload) OP_STAGE_ALL, same plan",
           again == plan && again2 == plan && plan->count == 4);

    const int before = OP_plan_index;
    op_plan *big = op_plan_get("edge_loop", edges, 2 * PART, NARGS, args, NINDS, inds);
    report("other part size, new plan",
           big != plan && big->count == 1 && big->part_size == 2 * PART &&
               big->nblocks == (NEDGE + 2 * PART - 1) / (2 * PART) &&
               OP_plan_index == before + 1 && in_op_plans(big));
    op_plan_check(*big, NINDS, inds);
    report("op_plan_check (other part size)", 1);

    args[4] = op_arg_dat(c, 0, pecell, 2, "double", OP_INC);
    op_plan *inc = op_plan_get("edge_loop", edges, PART, NARGS, args, NINDS, inds);
    args[4] = op_arg_dat(c, 0, pecell, 2, "double", OP_RW);
    report("other access, new plan", inc != plan && inc != big && inc->count == 1);

    op_plan *named = op_plan_get("edge_loop_2", edges, PART, NARGS, args, NINDS, inds);
    report("other name, new plan", named != plan && named->count == 1);

    /* the part-size-128 plan is still cached (pointer fetched again: OP_plans
     * may have moved) */
    op_plan *big2 = op_plan_get("edge_loop", edges, 2 * PART, NARGS, args, NINDS, inds);
    plan = op_plan_get("edge_loop", edges, PART, NARGS, args, NINDS, inds);
    report("cached plans found again",
           big2->count == 2 && big2->part_size == 2 * PART && plan->count == 5 &&
               OP_plan_index == before + 3);
  }

  /* ---- a read-only indirect loop needs one colour -------------------------- */
  {
    op_arg ro[2];
    int ro_inds[2] = {0, 0};
    ro[0] = op_arg_dat(x, 0, pedge, 2, "double", OP_READ);
    ro[1] = op_arg_dat(x, 1, pedge, 2, "double", OP_READ);
    op_plan *p = op_plan_get("read_only", edges, PART, 2, ro, 1, ro_inds);
    report("read-only loop, one colour",
           p->ncolors == 1 && p->ncolblk[0] == p->nblocks);
  }

  /* ---- run the loop the way generated OpenMP code does --------------------- */
  {
    const int nthreads = max_threads();
    double *sum_l = (double *)calloc((size_t)nthreads * SLOT, sizeof(double));
    int set_size = op_mpi_halo_exchanges(edges, NARGS, args);
    op_plan *p = op_plan_get_stage_upload("edge_loop", edges, PART, NARGS, args,
                                          NINDS, inds, OP_STAGE_ALL, 0);
    int block_offset = 0;
    for (int col = 0; col < p->ncolors; col++) {
      if (col == p->ncolors_core)
        op_mpi_wait_all(NARGS, args);
      const int nblocks = p->ncolblk[col];
#pragma omp parallel for
      for (int blockIdx = 0; blockIdx < nblocks; blockIdx++) {
        const int blockId = p->blkmap[blockIdx + block_offset];
        const int offset_b = p->offset[blockId];
        const int nelem = p->nelems[blockId];
        double *slot = &sum_l[(size_t)thread_num() * SLOT];
        for (int n = offset_b; n < offset_b + nelem; n++)
          run_element(args, n, slot);
      }
      block_offset += nblocks;
    }
    for (int t = 0; t < nthreads; t++)
      *(double *)args[6].data += sum_l[(size_t)t * SLOT];
    if (set_size == 0 || set_size == edges->core_size)
      op_mpi_wait_all(NARGS, args);
    op_mpi_reduce_double(&args[6], (double *)args[6].data);
    op_mpi_set_dirtybit(NARGS, args);
    free(sum_l);

    check_against_plain("plan execution = plain loop", r, c, sum);
  }

  op_exit();
  return failures == 0 ? 0 : 1;
}
