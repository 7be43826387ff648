// mpi_check.h -- pieces shared by the MPI test programs in this directory.
//
//   * block distribution helpers (how the programs hand out a set of n
//     elements before op_partition: n / nranks each, one more for the first
//     n % nranks ranks);
//   * Grid: a structured nx x ny mesh (nodes, cells, interior edges) stored
//     in the unstructured layout, generated identically on every rank, with
//     optionally scrambled element numbering so that a rank's initial block
//     is spread all over the mesh;
//   * Checks: named checks that pass only if they pass on every rank; rank 0
//     prints "PASS <name>" / "FAIL <name>", a failing rank prints details;
//   * run_partition: op_partition selected by a name given on the command
//     line (--part=NAME), see partition_call().
//
// Include after "op_lib_mpi.h" and "op_seq.h".
#ifndef C_EXAMPLES_MPI_CHECK_H
#define C_EXAMPLES_MPI_CHECK_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <string>
#include <vector>

// ---------------------------------------------------------------------------
// block distribution
// ---------------------------------------------------------------------------

inline int block_size(int n, int nranks, int r) {
  return n / nranks + (r < n % nranks ? 1 : 0);
}

inline int block_start(int n, int nranks, int r) {
  int s = 0;
  for (int k = 0; k < r; ++k)
    s += block_size(n, nranks, k);
  return s;
}

// rows [start, start + count) of a global array with dim values per row;
// one spare element keeps data() non-null for empty blocks
template <typename T>
std::vector<T> rows_of(const std::vector<T> &global, int dim, int start,
                       int count) {
  std::vector<T> v((size_t)dim * count + 1);
  for (size_t k = 0; k < (size_t)dim * count; ++k)
    v[k] = global[(size_t)dim * start + k];
  v.resize((size_t)dim * count); // keeps the capacity
  return v;
}

// ---------------------------------------------------------------------------
// structured grid in unstructured storage
// ---------------------------------------------------------------------------

// a bijection of [0, n): k -> (k * a + b) mod n with gcd(a, n) == 1
struct Scramble {
  long long n = 1, a = 1, b = 0;
  Scramble() = default;
  Scramble(int n_, bool on) : n(n_ > 0 ? n_ : 1) {
    if (!on)
      return;
    a = 7919 % n;
    if (a == 0)
      a = 1;
    while (gcd(a, n) != 1)
      ++a;
    b = n / 3;
  }
  static long long gcd(long long x, long long y) {
    while (y != 0) {
      long long t = x % y;
      x = y;
      y = t;
    }
    return x;
  }
  int operator()(long long k) const { return (int)((k * a + b) % n); }
};

struct Grid {
  int nx = 0, ny = 0;
  int nnode = 0, ncell = 0, nedge = 0;
  std::vector<int> cell;     // cell -> 4 nodes (counter-clockwise)
  std::vector<int> edge;     // interior edge -> 2 nodes
  std::vector<int> ecell;    // interior edge -> 2 cells
  std::vector<double> xy;    // node coordinates
  std::vector<double> cxyz;  // cell centroids (x, y, z = 0.1 x y)

  Grid(int nx_, int ny_, bool scramble) : nx(nx_), ny(ny_) {
    nnode = (nx + 1) * (ny + 1);
    ncell = nx * ny;
    nedge = (nx - 1) * ny + nx * (ny - 1);
    const Scramble pn(nnode, scramble), pc(ncell, scramble),
        pe(nedge, scramble);
    auto node = [&](int i, int j) { return pn(j * (nx + 1) + i); };
    auto cid = [&](int i, int j) { return pc(j * nx + i); };
    xy.assign(2 * (size_t)nnode, 0.0);
    for (int j = 0; j <= ny; ++j)
      for (int i = 0; i <= nx; ++i) {
        xy[2 * node(i, j)] = i;
        xy[2 * node(i, j) + 1] = 0.5 * j;
      }
    cell.assign(4 * (size_t)ncell, 0);
    cxyz.assign(3 * (size_t)ncell, 0.0);
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        const int c = cid(i, j);
        cell[4 * c + 0] = node(i, j);
        cell[4 * c + 1] = node(i + 1, j);
        cell[4 * c + 2] = node(i + 1, j + 1);
        cell[4 * c + 3] = node(i, j + 1);
        cxyz[3 * c + 0] = i + 0.5;
        cxyz[3 * c + 1] = 0.5 * (j + 0.5);
        cxyz[3 * c + 2] = 0.1 * (i + 0.5) * (j + 0.5);
      }
    edge.assign(2 * (size_t)nedge, 0);
    ecell.assign(2 * (size_t)nedge, 0);
    int e = 0;
    for (int j = 0; j < ny; ++j) // vertical edges between (i-1,j) and (i,j)
      for (int i = 1; i < nx; ++i, ++e) {
        const int k = pe(e);
        edge[2 * k] = node(i, j);
        edge[2 * k + 1] = node(i, j + 1);
        ecell[2 * k] = cid(i - 1, j);
        ecell[2 * k + 1] = cid(i, j);
      }
    for (int j = 1; j < ny; ++j) // horizontal edges between (i,j-1), (i,j)
      for (int i = 0; i < nx; ++i, ++e) {
        const int k = pe(e);
        edge[2 * k] = node(i + 1, j);
        edge[2 * k + 1] = node(i, j);
        ecell[2 * k] = cid(i, j - 1);
        ecell[2 * k + 1] = cid(i, j);
      }
  }
};

// ---------------------------------------------------------------------------
// named checks, agreed over all ranks
// ---------------------------------------------------------------------------

class Checks {
public:
  Checks() {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks_);
  }
  int rank() const { return rank_; }
  int nranks() const { return nranks_; }

  // record a local outcome; `fmt` describes a failure (printed at once by
  // the failing rank, prefixed with its rank and the check name)
  void expect(const char *name, bool ok, const char *fmt = nullptr, ...)
#if defined(__GNUC__)
      __attribute__((format(printf, 4, 5)))
#endif
  {
    Entry &e = entry(name);
    if (ok)
      return;
    if (e.ok && fmt != nullptr) { // details of the first failure only
      char msg[512];
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(msg, sizeof msg, fmt, ap);
      va_end(ap);
      printf("rank %d: %s: %s\n", rank_, name, msg);
      fflush(stdout);
    }
    e.ok = false;
  }

  // collective: every rank must call it with the same checks recorded in
  // the same order.  Prints PASS/FAIL lines on rank 0; returns the number
  // of failed checks (the same on every rank).
  int report() {
    int failed = 0;
    for (const Entry &e : entries_) {
      int mine = e.ok ? 1 : 0, all = 0;
      MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
      op_printf("%s %s\n", all ? "PASS" : "FAIL", e.name.c_str());
      if (!all)
        ++failed;
    }
    entries_.clear();
    fflush(stdout);
    return failed;
  }

private:
  struct Entry {
    std::string name;
    bool ok;
  };
  Entry &entry(const char *name) {
    for (Entry &e : entries_)
      if (e.name == name)
        return e;
    entries_.push_back(Entry{name, true});
    return entries_.back();
  }
  int rank_ = 0, nranks_ = 1;
  std::vector<Entry> entries_;
};

// compare n values of an array with the expected ones (exactly)
template <typename T>
bool same_values(const T *got, const T *want, size_t n, size_t *first_bad) {
  for (size_t k = 0; k < n; ++k)
    if (!(got[k] == want[k])) {
      *first_bad = k;
      return false;
    }
  return true;
}

// ---------------------------------------------------------------------------
// partitioner selection
// ---------------------------------------------------------------------------

struct PartitionCall {
  const char *lib;
  const char *routine;
  enum Coords { XY, CENTROIDS, OWNER } coords;
};

// --part=NAME -> the op_partition arguments (as OP2 applications spell
// them); an unknown NAME is passed on as the library name
inline PartitionCall partition_call(const char *name) {
  if (strcmp(name, "PARMETIS") == 0 || strcmp(name, "KWAY") == 0)
    return {"PARMETIS", "KWAY", PartitionCall::XY};
  if (strcmp(name, "GEOMKWAY") == 0)
    return {"PARMETIS", "GEOMKWAY", PartitionCall::XY};
  if (strcmp(name, "GEOM") == 0)
    return {"PARMETIS", "GEOM", PartitionCall::XY};
  if (strcmp(name, "PTSCOTCH") == 0)
    return {"PTSCOTCH", "KWAY", PartitionCall::XY};
  if (strcmp(name, "KAHIP") == 0)
    return {"KAHIP", "KWAY", PartitionCall::XY};
  if (strcmp(name, "INERTIAL") == 0)
    return {"INERTIAL", "INERTIAL", PartitionCall::CENTROIDS};
  if (strcmp(name, "RANDOM") == 0)
    return {"RANDOM", "RANDOM", PartitionCall::XY};
  if (strcmp(name, "EXTERNAL") == 0)
    return {"EXTERNAL", "EXTERNAL", PartitionCall::OWNER};
  return {name, "KWAY", PartitionCall::XY};
}

// value of "--name=VALUE" or nullptr
inline const char *option_value(const char *arg, const char *name) {
  const size_t n = strlen(name);
  if (strncmp(arg, name, n) == 0 && arg[n] == '=')
    return arg + n + 1;
  return nullptr;
}

#endif
