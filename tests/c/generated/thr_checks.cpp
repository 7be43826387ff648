// thr_checks.cpp -- libop2_openmp checks for tests/tests/threads.rs, one
// case per argv[1]:
//
//   pool N              a direct loop of 64 blocks (OP_PART_SIZE=128 is passed
//                       too) whose kernel records which thread ran each
//                       element; the first element of every block waits (at
//                       most 5 s) until N distinct threads have shown up, so
//                       with a pool of N threads all of them take part.
//                       Prints "threads used: <k>".
//   none                a valid set-up and one loop: runs to the end.
//   map_out_of_range    op_decl_map with an entry past the to-set.
//   arg_dim             op_arg_dat whose dim is not the dat's.
//   loop_wrong_set      op_par_loop over nodes with an argument mapped from
//                       edges.
//   plan_wrong_set      op_plan_get (as generated code calls it) with an
//                       indirect argument whose map is not from the loop set.
//
// Error cases print BEFORE just before the bad call and UNREACHABLE after
// it; kernels print KERNEL RAN.
#include <stdio.h>
#include <string.h>

#include <atomic>
#include <chrono>
#include <set>
#include <thread>
#include <vector>

#include "op_seq.h"

static std::atomic<int> next_thread_id{0};
static int wanted_threads = 1;
static thread_local int my_thread_id = -1;

inline void who_runs(const int *elem, int *thread) {
  if (my_thread_id < 0)
    my_thread_id = next_thread_id++;
  *thread = my_thread_id;
  if (*elem % 128 == 0) {
    const auto t0 = std::chrono::steady_clock::now();
    while (next_thread_id.load() < wanted_threads &&
           std::chrono::steady_clock::now() - t0 < std::chrono::seconds(5))
      std::this_thread::yield();
  }
}

inline void add_one(double *v) {
  printf("KERNEL RAN\n");
  *v += 1.0;
}

static int pool_case(int n) {
  wanted_threads = n;
  const int nelem = 64 * 128;
  std::vector<int> elem(nelem), thread(nelem, -1);
  for (int i = 0; i < nelem; i++)
    elem[i] = i;
  op_set s = op_decl_set(nelem, "elems");
  op_dat p_elem = op_decl_dat(s, 1, "int", elem.data(), "elem");
  op_dat p_thread = op_decl_dat(s, 1, "int", thread.data(), "thread");
  op_par_loop(who_runs, "who_runs", s,
              op_arg_dat(p_elem, -1, OP_ID, 1, "int", OP_READ),
              op_arg_dat(p_thread, -1, OP_ID, 1, "int", OP_WRITE));
  op_fetch_data(p_thread, thread.data());
  std::set<int> ids(thread.begin(), thread.end());
  printf("threads used: %d\n", (int)ids.size());
  printf("every element ran: %s\n", ids.count(-1) ? "no" : "yes");
  return 0;
}

int main(int argc, char **argv) {
  const char *c = argc > 1 ? argv[1] : "none";
  op_init(argc, argv, 0);

  if (strcmp(c, "pool") == 0) {
    const int rc = pool_case(argc > 2 ? atoi(argv[2]) : 1);
    op_exit();
    return rc;
  }

  int edge_map[6] = {0, 1, 1, 2, 2, 3};
  double xdata[8] = {0, 0, 1, 0, 1, 1, 0, 1};
  double vdata[4] = {0, 0, 0, 0};
  op_set nodes = op_decl_set(4, "nodes");
  op_set edges = op_decl_set(3, "edges");
  op_map pedge = op_decl_map(edges, nodes, 2, edge_map, "pedge");
  op_dat x = op_decl_dat(nodes, 2, "double", xdata, "x");
  op_dat v = op_decl_dat(nodes, 1, "double", vdata, "v");

  if (strcmp(c, "none") == 0) {
    printf("BEFORE\n");
    op_par_loop(add_one, "add_one", edges,
                op_arg_dat(v, 0, pedge, 1, "double", OP_INC));
    printf("UNREACHABLE\n");
  } else if (strcmp(c, "map_out_of_range") == 0) {
    int bad[6] = {0, 1, 1, 9, 2, 3};
    printf("BEFORE\n");
    fflush(stdout);
    op_decl_map(edges, nodes, 2, bad, "pbad");
    printf("UNREACHABLE\n");
  } else if (strcmp(c, "arg_dim") == 0) {
    printf("BEFORE\n");
    fflush(stdout);
    op_arg a = op_arg_dat(x, -1, OP_ID, 3, "double", OP_READ);
    (void)a;
    printf("UNREACHABLE\n");
  } else if (strcmp(c, "loop_wrong_set") == 0) {
    printf("BEFORE\n");
    fflush(stdout);
    op_par_loop(add_one, "add_one", nodes,
                op_arg_dat(v, 0, pedge, 1, "double", OP_INC));
    printf("UNREACHABLE\n");
  } else if (strcmp(c, "plan_wrong_set") == 0) {
    // a loop over nodes with an argument mapped from edges
    op_arg args[2] = {op_arg_dat(x, 0, pedge, 2, "double", OP_READ),
                      op_arg_dat(v, 0, pedge, 1, "double", OP_INC)};
    int inds[2] = {0, 1};
    printf("BEFORE\n");
    fflush(stdout);
    op_plan *p = op_plan_get("bad_loop", nodes, 0, 2, args, 2, inds);
    (void)p;
    printf("UNREACHABLE\n");
  } else {
    fprintf(stderr, "unknown case %s\n", c);
    return 2;
  }
  op_exit();
  return 0;
}
