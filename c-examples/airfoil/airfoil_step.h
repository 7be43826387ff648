// One time step of airfoil (save_soln, then two stages of adt_calc,
// res_calc, bres_calc and update), shared by every airfoil program here
// (airfoil.cpp, airfoil_mpi.cpp and the HDF5 variants): they differ only in
// how the mesh is declared and how results are reported.
#ifndef AIRFOIL_STEP_H
#define AIRFOIL_STEP_H

#include "op_seq.h"

#include "adt_calc.h"
#include "bres_calc.h"
#include "res_calc.h"
#include "save_soln.h"
#include "update.h"

// The sets, maps and dats the time step works on.
struct AirfoilData {
  op_set edges, bedges, cells;
  op_map pedge, pecell, pbedge, pbecell, pcell;
  op_dat p_bound, p_x, p_q, p_qold, p_adt, p_res;
};

// Advance q by one step; returns the sum of squared updates of the last
// stage (the caller divides by the number of cells and takes the root).
inline double airfoil_step(const AirfoilData &a) {
  op_par_loop(save_soln, "save_soln", a.cells,
              op_arg_dat(a.p_q, -1, OP_ID, 4, "double", OP_READ),
              op_arg_dat(a.p_qold, -1, OP_ID, 4, "double", OP_WRITE));

  double rms = 0.0;
  for (int stage = 0; stage < 2; ++stage) {

    op_par_loop(adt_calc, "adt_calc", a.cells,
                op_arg_dat(a.p_x, 0, a.pcell, 2, "double", OP_READ),
                op_arg_dat(a.p_x, 1, a.pcell, 2, "double", OP_READ),
                op_arg_dat(a.p_x, 2, a.pcell, 2, "double", OP_READ),
                op_arg_dat(a.p_x, 3, a.pcell, 2, "double", OP_READ),
                op_arg_dat(a.p_q, -1, OP_ID, 4, "double", OP_READ),
                op_arg_dat(a.p_adt, -1, OP_ID, 1, "double", OP_WRITE));

    op_par_loop(res_calc, "res_calc", a.edges,
                op_arg_dat(a.p_x, 0, a.pedge, 2, "double", OP_READ),
                op_arg_dat(a.p_x, 1, a.pedge, 2, "double", OP_READ),
                op_arg_dat(a.p_q, 0, a.pecell, 4, "double", OP_READ),
                op_arg_dat(a.p_q, 1, a.pecell, 4, "double", OP_READ),
                op_arg_dat(a.p_adt, 0, a.pecell, 1, "double", OP_READ),
                op_arg_dat(a.p_adt, 1, a.pecell, 1, "double", OP_READ),
                op_arg_dat(a.p_res, 0, a.pecell, 4, "double", OP_INC),
                op_arg_dat(a.p_res, 1, a.pecell, 4, "double", OP_INC));

    op_par_loop(bres_calc, "bres_calc", a.bedges,
                op_arg_dat(a.p_x, 0, a.pbedge, 2, "double", OP_READ),
                op_arg_dat(a.p_x, 1, a.pbedge, 2, "double", OP_READ),
                op_arg_dat(a.p_q, 0, a.pbecell, 4, "double", OP_READ),
                op_arg_dat(a.p_adt, 0, a.pbecell, 1, "double", OP_READ),
                op_arg_dat(a.p_res, 0, a.pbecell, 4, "double", OP_INC),
                op_arg_dat(a.p_bound, -1, OP_ID, 1, "int", OP_READ));

    rms = 0.0;
    op_par_loop(update, "update", a.cells,
                op_arg_dat(a.p_qold, -1, OP_ID, 4, "double", OP_READ),
                op_arg_dat(a.p_q, -1, OP_ID, 4, "double", OP_WRITE),
                op_arg_dat(a.p_res, -1, OP_ID, 4, "double", OP_RW),
                op_arg_dat(a.p_adt, -1, OP_ID, 1, "double", OP_READ),
                op_arg_gbl(&rms, 1, "double", OP_INC));
  }
  return rms;
}

#endif
