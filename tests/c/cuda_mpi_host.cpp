/* libop2_mpi_cuda's halo exchanges of device data, on devices simulated in
 * host memory (OP2_RS_DEVICE=host; device pointers are host addresses, so
 * this program plays the part of generated CUDA kernels). A chain of nodes
 * and edges is partitioned over the ranks; a "device loop" writes x = 2 * gid
 * on the owned nodes, then an edge loop that reads x and gid through the
 * edge->node map starts its halo exchanges for the device (device 2): after
 * op_mpi_wait_all_grouped every node an executed edge reaches must hold
 * 2 * gid in its device copy, halo rows included. op_fetch_data_idx then
 * returns x in the original order. Prints PASS/FAIL lines on rank 0. */
#include "op_lib_mpi.h"
#include "op_seq.h"

#include <cstdio>
#include <vector>

static int failures = 0;
static void check(int rank, bool ok, const char *name) {
  int all = ok ? 1 : 0, every = 0;
  MPI_Allreduce(&all, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank == 0)
    std::printf("%s %s\n", every ? "PASS" : "FAIL", name);
  if (!every)
    failures++;
}

int main(int argc, char **argv) {
  op_init(argc, argv, 1);
  int rank = 0;
  op_rank(&rank);
  const int nn = 64, ne = nn - 1;
  /* Every rank declares the whole chain on rank 0's share, nothing on others. */
  int my_nodes = rank == 0 ? nn : 0, my_edges = rank == 0 ? ne : 0;
  std::vector<int> pedge(2 * my_edges);
  std::vector<double> gid0(my_nodes), x0(my_nodes, 0.0), xy0(2 * my_nodes);
  for (int e = 0; e < my_edges; e++) {
    pedge[2 * e] = e;
    pedge[2 * e + 1] = e + 1;
  }
  for (int i = 0; i < my_nodes; i++) {
    gid0[i] = i;
    xy0[2 * i] = i;
    xy0[2 * i + 1] = 0.0;
  }
  op_set nodes = op_decl_set(my_nodes, "nodes");
  op_set edges = op_decl_set(my_edges, "edges");
  op_map m = op_decl_map(edges, nodes, 2, pedge.data(), "pedge");
  op_dat gid = op_decl_dat(nodes, 1, "double", gid0.data(), "gid");
  op_dat x = op_decl_dat(nodes, 1, "double", x0.data(), "x");
  op_dat xy = op_decl_dat(nodes, 2, "double", xy0.data(), "xy");
  op_partition("RANDOM", "", edges, m, xy);

  check(rank, OP_hybrid_gpu == 1 && x->data_d != nullptr && m->map_d != nullptr,
        "device_copies_after_partition");

  /* Device loop 1: x = 2 * gid on the owned nodes (direct). */
  op_arg a1[2] = {op_arg_dat(gid, -1, OP_ID, 1, "double", OP_READ),
                  op_arg_dat(x, -1, OP_ID, 1, "double", OP_WRITE)};
  int n1 = op_mpi_halo_exchanges_grouped(nodes, 2, a1, 2);
  op_mpi_wait_all_grouped(2, a1, 2);
  const double *gd = (const double *)gid->data_d;
  double *xd = (double *)x->data_d;
  for (int i = 0; i < n1; i++)
    xd[i] = 2.0 * gd[i];
  op_mpi_set_dirtybit_cuda(2, a1);
  check(rank, x->dirty_hd == 2, "device_write_dirty_hd_2");

  /* Device loop 2 over edges reads x and gid through the map: its exchanges
     must bring the neighbours' owned values into the device halo rows. */
  op_arg a2[4] = {op_arg_dat(x, 0, m, 1, "double", OP_READ),
                  op_arg_dat(x, 1, m, 1, "double", OP_READ),
                  op_arg_dat(gid, 0, m, 1, "double", OP_READ),
                  op_arg_dat(gid, 1, m, 1, "double", OP_READ)};
  int n2 = op_mpi_halo_exchanges_grouped(edges, 4, a2, 2);
  op_mpi_wait_all_grouped(4, a2, 2);
  int stride = (edges->size + edges->exec_size + 31) / 32 * 32;
  bool halo_ok = n2 >= edges->size;
  for (int e = 0; e < n2; e++)
    for (int j = 0; j < 2; j++) {
      int k = m->map_d[j * stride + e];
      halo_ok = halo_ok && k >= 0 && xd[k] == 2.0 * gd[k];
    }
  check(rank, halo_ok, "device_halo_rows_after_exchange");
  op_mpi_set_dirtybit_cuda(4, a2);

  /* The host copy in the original order. */
  std::vector<double> all(nn);
  op_fetch_data_idx(x, all.data(), 0, nn - 1);
  bool fetch_ok = true;
  for (int i = 0; i < nn; i++)
    fetch_ok = fetch_ok && all[i] == 2.0 * i;
  check(rank, fetch_ok, "fetch_in_original_order");

  op_exit();
  if (rank == 0)
    std::printf("%d failures\n", failures);
  return failures != 0;
}
