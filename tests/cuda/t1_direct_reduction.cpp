/*
 * CUDA test (a): a direct loop with global reductions (dim-2 double OP_INC,
 * OP_MIN, OP_MAX, int OP_INC) and a __constant__ set with op_decl_const2,
 * run with several block sizes (including ones that are not powers of two),
 * against a plain host loop. Application side, as OP2's translator leaves an
 * application (op_seq.h replaced by op_lib_cpp.h, op_par_loop calls renamed);
 * the kernels are in t1_direct_reduction_kernels.cu.
 */
#include "op_lib_cpp.h"

#include "cuda_test_mesh.h"

void op_par_loop_direct_reduction(char const *, op_set, op_arg, op_arg, op_arg, op_arg, op_arg,
                                  op_arg);

int main(int argc, char **argv) {
  op_init(argc, argv, 1);

  const int n = 1207; /* not a multiple of 32 */
  std::vector<double> x(2 * n), y(n, 0.0);
  for (int i = 0; i < n; ++i) {
    x[2 * i] = test_value(i, 1);
    x[2 * i + 1] = test_value(i, 2);
  }
  double scale = 1.5;
  op_decl_const2("scale", 1, "double", &scale);

  op_set cells = op_decl_set(n, "cells");
  op_dat p_x = op_decl_dat(cells, 2, "double", x.data(), "p_x");
  op_dat p_y = op_decl_dat(cells, 1, "double", y.data(), "p_y");

  bool ok = true;
  const int default_block_size = OP_block_size;
  const int block_sizes[4] = {default_block_size, 96, 33, 1024};
  for (int t = 0; t < 4; ++t) {
    OP_block_size = block_sizes[t];
    /* the third run starts the minimum below every value: it must stay */
    const double mn0 = t == 2 ? -100.0 : 1e300;
    double sum[2] = {0.0, 0.0}, mn = mn0, mx = -1e300;
    int count = 0;
    op_par_loop_direct_reduction("direct_reduction", cells,
                                 op_arg_dat(p_x, -1, OP_ID, 2, "double", OP_READ),
                                 op_arg_dat(p_y, -1, OP_ID, 1, "double", OP_WRITE),
                                 op_arg_gbl(sum, 2, "double", OP_INC),
                                 op_arg_gbl(&mn, 1, "double", OP_MIN),
                                 op_arg_gbl(&mx, 1, "double", OP_MAX),
                                 op_arg_gbl(&count, 1, "int", OP_INC));

    double sum_ref[2] = {0.0, 0.0}, mn_ref = mn0, mx_ref = -1e300;
    for (int i = 0; i < n; ++i) {
      sum_ref[0] += x[2 * i];
      sum_ref[1] += x[2 * i] * x[2 * i + 1];
      if (x[2 * i + 1] < mn_ref)
        mn_ref = x[2 * i + 1];
      if (x[2 * i] > mx_ref)
        mx_ref = x[2 * i];
    }
    char what[64];
    snprintf(what, sizeof what, "block size %d: sum", block_sizes[t]);
    ok &= check_values(what, sum, sum_ref, 2);
    snprintf(what, sizeof what, "block size %d: min", block_sizes[t]);
    ok &= check_values(what, &mn, &mn_ref, 1);
    snprintf(what, sizeof what, "block size %d: max", block_sizes[t]);
    ok &= check_values(what, &mx, &mx_ref, 1);
    snprintf(what, sizeof what, "block size %d: count", block_sizes[t]);
    ok &= check_int(what, count, n);
  }
  OP_block_size = default_block_size;

  std::vector<double> y_got(n), y_ref(n);
  op_fetch_data(p_y, y_got.data());
  for (int i = 0; i < n; ++i)
    y_ref[i] = scale * x[2 * i] + x[2 * i + 1];
  ok &= check_values("y = scale * x0 + x1", y_got.data(), y_ref.data(), n);

  op_exit();
  return report("t1_direct_reduction", ok);
}
