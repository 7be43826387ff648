// writer OUT FETCH -- declare two sets, a map and dats of several type strings
// through OP2's API, write them with op_dump_to_hdf5(OUT), add constants with
// op_write_const_hdf5(OUT), rewrite one dat in place with
// op_fetch_data_hdf5_file(OUT), and put three dats in FETCH with
// op_fetch_data_hdf5_file and op_fetch_data_hdf5_file_path.
// Built once against OP2's library and once against op2-rs's.
#include <stdio.h>

#include <vector>

#include "op_seq.h"
#include "op_hdf5.h"

#include "values.h"

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s OUT.h5 FETCH.h5\n", argv[0]);
    return 2;
  }
  const char *out = argv[1];
  const char *fetch = argv[2];
  op_init(0, nullptr, 0);

  std::vector<double> x(NNODE * 2), s(NNODE * 2);
  std::vector<int> iv(NNODE * 3), c2n(NCELL * MAPDIM);
  std::vector<float> f(NCELL);
  std::vector<long> l(NCELL * 2);
  std::vector<long long> ll(NCELL);
  for (int n = 0; n < NNODE; ++n) {
    for (int k = 0; k < 2; ++k) {
      x[n * 2 + k] = x_val(n, k);
      s[n * 2 + k] = s_val(n, k);
    }
    for (int k = 0; k < 3; ++k)
      iv[n * 3 + k] = i_val(n, k);
  }
  for (int c = 0; c < NCELL; ++c) {
    f[c] = f_val(c);
    ll[c] = ll_val(c);
    for (int k = 0; k < 2; ++k)
      l[c * 2 + k] = l_val(c, k);
    for (int k = 0; k < MAPDIM; ++k)
      c2n[c * MAPDIM + k] = map_val(c, k);
  }

  op_set nodes = op_decl_set(NNODE, "nodes");
  op_set cells = op_decl_set(NCELL, "cells");
  op_decl_map(cells, nodes, MAPDIM, c2n.data(), MAP_NAME);
  op_dat dx = op_decl_dat(nodes, 2, "double", x.data(), X_NAME);
  op_decl_dat(cells, 1, "float", f.data(), F_NAME);
  op_decl_dat(nodes, 3, "int", iv.data(), I_NAME);
  // OP2's op_lib_cpp.h has no op_decl_dat template check for long / long
  // long data (its type_error takes "ll"/"ull" only): the C declaration
  op_dat dl = op_decl_dat_char(cells, 2, "long", (int)sizeof(long), (char *)l.data(), L_NAME);
  op_decl_dat_char(cells, 1, "long long", (int)sizeof(long long), (char *)ll.data(), LL_NAME);
  op_dat ds = op_decl_dat(nodes, 2, "double:soa", s.data(), S_NAME);

  op_dump_to_hdf5(out);
  op_write_const_hdf5("gam", 1, "double", (char *)&C_GAM, out);
  op_write_const_hdf5("qinf", 4, "double", (char *)C_QINF, out);
  op_write_const_hdf5("nint", 2, "int", (char *)C_NINT, out);
  op_write_const_hdf5("fl", 3, "float", (char *)C_FL, out);
  op_write_const_hdf5("lg", 1, "long", (char *)C_LG, out);
  op_write_const_hdf5("fields/cst", 2, "double", (char *)C_CST, out);
  op_fetch_data_hdf5_file(dx, out); // the dataset exists: rewritten in place

  op_fetch_data_hdf5_file(dl, fetch);
  op_fetch_data_hdf5_file(ds, fetch);
  op_fetch_data_hdf5_file_path(dx, fetch, FETCH_PATH);
  op_exit();
  return 0;
}
