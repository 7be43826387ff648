/* Run op2-codegen's OpenCL code for c-examples/airfoil's five loops on the
 * first OpenCL device (PoCL's CPU device here) and compare every step with
 * the same kernels called in plain C++ loops: the execution check of the
 * generated code (scripts/codegen_compile_check.sh).
 *
 *   opencl_airfoil SRC_DIR TAG NI NJ STEPS
 *
 * SRC_DIR holds what `cargo run -p op2-codegen --example dump` wrote
 * (entries.txt: file entry scheme groups params...); TAG is colour2 or
 * atomics. The launcher binds each kernel's parameters in the order the
 * generator lists them (its launch contract); plans come from
 * op_plan_get_stage of the op2-rs library linked in (core's plan, every
 * indirect argument staged, block size 64 = the generated work-group).
 * Prints the largest relative difference of q and of each step's rms from
 * the C++ loops; exits 0 when both are within 1e-11 (increments and sums
 * are added in another order than the C++ loops: colours, atomics,
 * work-group trees). */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "op_lib_c.h"

double gam, gm1, cfl, eps, mach, alpha, qinf[4];
#include "adt_calc.h"
#include "airfoil_setup.h"
#include "bres_calc.h"
#include "naca_mesh.h"
#include "res_calc.h"
#include "save_soln.h"
#include "update.h"

static const int BS = 64;

static void die(const char *what, int err) {
  std::fprintf(stderr, "opencl_airfoil: %s (error %d)\n", what, err);
  std::exit(1);
}

struct Arg { // one argument of a loop: dat id, map id (-1 direct), idx, dim, access
  int dat, map, idx, dim;
  op_access acc;
};
struct Loop {
  const char *name;
  int set; // 0 nodes 1 edges 2 bedges 3 cells
  std::vector<Arg> args;
  bool gbl; // update's rms (the last argument)
};

struct Entry {
  std::string file, entry, scheme;
  std::vector<std::pair<int, int>> groups;
  std::vector<std::string> params;
};

static std::map<std::string, Entry> read_entries(const std::string &dir) {
  std::ifstream in(dir + "/entries.txt");
  std::map<std::string, Entry> out;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    Entry e;
    std::string groups, p;
    ls >> e.file >> e.entry >> e.scheme >> groups;
    while (ls >> p)
      e.params.push_back(p);
    if (groups != "-") {
      std::istringstream gs(groups);
      std::string g;
      while (std::getline(gs, g, ','))
        e.groups.push_back({std::atoi(g.c_str()), std::atoi(g.substr(g.find(':') + 1).c_str())});
    }
    out[e.file] = e;
  }
  return out;
}

struct Cl {
  cl_context ctx;
  cl_device_id dev;
  cl_command_queue q;
  cl_mem buf(size_t bytes, const void *host) {
    cl_int err;
    cl_mem m = clCreateBuffer(ctx, CL_MEM_READ_WRITE | (host ? CL_MEM_COPY_HOST_PTR : 0),
                              bytes ? bytes : 8, const_cast<void *>(host), &err);
    if (err != CL_SUCCESS)
      die("clCreateBuffer", err);
    return m;
  }
  void read(cl_mem m, size_t bytes, void *host) {
    cl_int err = clEnqueueReadBuffer(q, m, CL_TRUE, 0, bytes, host, 0, nullptr, nullptr);
    if (err != CL_SUCCESS)
      die("clEnqueueReadBuffer", err);
  }
  void write(cl_mem m, size_t bytes, const void *host) {
    cl_int err = clEnqueueWriteBuffer(q, m, CL_TRUE, 0, bytes, host, 0, nullptr, nullptr);
    if (err != CL_SUCCESS)
      die("clEnqueueWriteBuffer", err);
  }
  cl_kernel kernel(const std::string &path, const std::string &entry) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    std::string src = ss.str();
    const char *s = src.c_str();
    cl_int err;
    cl_program p = clCreateProgramWithSource(ctx, 1, &s, nullptr, &err);
    if (clBuildProgram(p, 1, &dev, "-cl-std=CL1.2", nullptr, nullptr) != CL_SUCCESS)
      die(("build " + path).c_str(), 0);
    cl_kernel k = clCreateKernel(p, entry.c_str(), &err);
    if (err != CL_SUCCESS)
      die(("kernel " + entry).c_str(), err);
    return k;
  }
};

template <typename T> static void set(cl_kernel k, int i, const T &v) {
  cl_int err = clSetKernelArg(k, (cl_uint)i, sizeof(T), &v);
  if (err != CL_SUCCESS)
    die("clSetKernelArg", err);
}

/* A staged plan's arrays on the device. */
struct DevPlan {
  op_plan *p;
  cl_mem ind_map, loc_map, ind_sizes, ind_offs, offset, nelems, nthrcol, thrcol, blkmap;
  size_t local_bytes;
};

int main(int argc, char **argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s SRC_DIR colour2|atomics NI NJ STEPS\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1], tag = argv[2];
  const int ni = std::atoi(argv[3]), nj = std::atoi(argv[4]), steps = std::atoi(argv[5]);
  auto entries = read_entries(dir);
  airfoil_set_constants();
  naca_mesh m;
  if (naca_mesh_generate(ni, nj, NACA_MESH_DEFAULT_RADIUS, &m) != 0)
    die("mesh", 0);
  const int nnode = m.nnode, ncell = m.ncell, nedge = m.nedge, nbedge = m.nbedge;
  const int set_size[4] = {nnode, nedge, nbedge, ncell};

  // host state: dats 0 x, 1 q, 2 qold, 3 adt, 4 res (double), 5 bound (int)
  std::vector<double> x(m.x, m.x + 2 * nnode), q(4 * ncell), qold(4 * ncell, 0.0), adt(ncell, 0.0),
      res(4 * ncell, 0.0);
  std::vector<int> bound(m.bound, m.bound + nbedge);
  for (int c = 0; c < ncell; c++)
    for (int k = 0; k < 4; k++)
      q[4 * c + k] = qinf[k];
  // maps 0 pedge, 1 pecell, 2 pbedge, 3 pbecell, 4 pcell: (from set, dim, values)
  struct MapH { int from, dim; int *v; };
  const MapH maps[5] = {{1, 2, m.edge}, {1, 2, m.ecell}, {2, 2, m.bedge}, {2, 1, m.becell}, {3, 4, m.cell}};
  const int dat_dim[6] = {2, 4, 4, 1, 4, 1};

  // the op2-rs library, for plans
  op_init(0, nullptr, 0);
  op_set sets[4] = {op_decl_set(nnode, "nodes"), op_decl_set(nedge, "edges"),
                    op_decl_set(nbedge, "bedges"), op_decl_set(ncell, "cells")};
  const int dat_set[6] = {0, 3, 3, 3, 3, 2};
  op_map omaps[5];
  const int map_to[5] = {0, 3, 0, 3, 0};
  for (int i = 0; i < 5; i++)
    omaps[i] = op_decl_map(sets[maps[i].from], sets[map_to[i]], maps[i].dim, maps[i].v, "map");
  op_dat odats[6];
  double *hd[5] = {x.data(), q.data(), qold.data(), adt.data(), res.data()};
  for (int i = 0; i < 5; i++)
    odats[i] = op_decl_dat_char(sets[dat_set[i]], dat_dim[i], "double", 8, (char *)hd[i], "dat");
  odats[5] = op_decl_dat_char(sets[2], 1, "int", 4, (char *)bound.data(), "bound");

  // the device
  Cl cl;
  cl_platform_id plat;
  cl_int err = clGetPlatformIDs(1, &plat, nullptr);
  if (err == CL_SUCCESS)
    err = clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &cl.dev, nullptr);
  if (err != CL_SUCCESS)
    die("no OpenCL device", err);
  cl.ctx = clCreateContext(nullptr, 1, &cl.dev, nullptr, nullptr, &err);
  cl.q = clCreateCommandQueue(cl.ctx, cl.dev, 0, &err);
  cl_mem dd[6];
  for (int i = 0; i < 5; i++)
    dd[i] = cl.buf(sizeof(double) * dat_dim[i] * set_size[dat_set[i]], hd[i]);
  dd[5] = cl.buf(sizeof(int) * nbedge, bound.data());
  cl_mem dm[5];
  for (int i = 0; i < 5; i++) { // transposed, stride = from-set size
    const int n = set_size[maps[i].from], d = maps[i].dim;
    std::vector<int> t((size_t)n * d);
    for (int e = 0; e < n; e++)
      for (int j = 0; j < d; j++)
        t[(size_t)j * n + e] = maps[i].v[e * d + j];
    dm[i] = cl.buf(sizeof(int) * t.size(), t.data());
  }

  using A = Arg;
  const std::vector<Loop> loops = {
      {"save_soln", 3, {A{1, -1, -1, 4, OP_READ}, A{2, -1, -1, 4, OP_WRITE}}, false},
      {"adt_calc", 3, {A{0, 4, 0, 2, OP_READ}, A{0, 4, 1, 2, OP_READ}, A{0, 4, 2, 2, OP_READ}, A{0, 4, 3, 2, OP_READ}, A{1, -1, -1, 4, OP_READ}, A{3, -1, -1, 1, OP_WRITE}}, false},
      {"res_calc", 1, {A{0, 0, 0, 2, OP_READ}, A{0, 0, 1, 2, OP_READ}, A{1, 1, 0, 4, OP_READ}, A{1, 1, 1, 4, OP_READ}, A{3, 1, 0, 1, OP_READ}, A{3, 1, 1, 1, OP_READ}, A{4, 1, 0, 4, OP_INC}, A{4, 1, 1, 4, OP_INC}}, false},
      {"bres_calc", 2, {A{0, 2, 0, 2, OP_READ}, A{0, 2, 1, 2, OP_READ}, A{1, 3, 0, 4, OP_READ}, A{3, 3, 0, 1, OP_READ}, A{4, 3, 0, 4, OP_INC}, A{5, -1, -1, 1, OP_READ}}, false},
      {"update", 3, {A{2, -1, -1, 4, OP_READ}, A{1, -1, -1, 4, OP_WRITE}, A{4, -1, -1, 4, OP_RW}, A{3, -1, -1, 1, OP_READ}}, true},
  };
  std::map<std::string, cl_kernel> kern;
  std::map<std::string, DevPlan> plans;
  for (const Loop &l : loops) {
    const Entry &e = entries.at(std::string(l.name) + "-" + tag + ".cl");
    kern[l.name] = cl.kernel(dir + "/" + e.file, e.entry);
    if (e.scheme != "staged")
      continue;
    // the plan, with the generator's groups as OP2's inds
    std::vector<op_arg> args;
    std::vector<int> inds;
    for (const Arg &a : l.args) {
      const char *ty = a.dat == 5 ? "int" : "double";
      args.push_back(op_arg_dat(odats[a.dat], a.idx, a.map < 0 ? OP_ID : omaps[a.map], a.dim, ty, a.acc));
      int g = -1;
      for (size_t k = 0; k < e.groups.size(); k++)
        if (a.map >= 0 && e.groups[k].first == a.dat && e.groups[k].second == a.map)
          g = (int)k;
      inds.push_back(g);
    }
    op_plan *p = op_plan_get_stage(l.name, sets[l.set], BS, (int)args.size(), args.data(),
                                   (int)e.groups.size(), inds.data(), OP_STAGE_ALL);
    const int ng = (int)e.groups.size(), nb = p->nblocks, n = set_size[l.set];
    size_t ind_len = 0, loc_len = 0;
    for (int g = 0; g < ng; g++)
      ind_len = std::max(ind_len, (size_t)(p->ind_maps[g] - p->ind_map) + (size_t)p->nindirect[g]);
    for (size_t j = 0; j < args.size(); j++)
      if (p->loc_maps[j] != nullptr)
        loc_len = std::max(loc_len, (size_t)(p->loc_maps[j] - p->loc_map) + (size_t)n);
    size_t local = 0;
    for (int b = 0; b < nb; b++) {
      size_t s = 0;
      for (int g = 0; g < ng; g++)
        s += ((size_t)p->ind_sizes[b * ng + g] * dat_dim[e.groups[g].first] * 8 + 7) / 8 * 8;
      local = std::max(local, s);
    }
    plans[l.name] = {p,
                     cl.buf(4 * ind_len, p->ind_map),
                     cl.buf(2 * loc_len, p->loc_map),
                     cl.buf(4 * (size_t)nb * ng, p->ind_sizes),
                     cl.buf(4 * (size_t)nb * ng, p->ind_offs),
                     cl.buf(4 * (size_t)nb, p->offset),
                     cl.buf(4 * (size_t)nb, p->nelems),
                     cl.buf(4 * (size_t)nb, p->nthrcol),
                     cl.buf(4 * (size_t)n, p->thrcol),
                     cl.buf(4 * (size_t)nb, p->blkmap),
                     local};
  }

  // run one loop on the device; returns update's rms (0 for the others)
  auto run = [&](const Loop &l) -> double {
    const Entry &e = entries.at(std::string(l.name) + "-" + tag + ".cl");
    cl_kernel k = kern[l.name];
    const int n = set_size[l.set];
    const int groups_flat = (n + BS - 1) / BS;
    double zero = 0.0;
    cl_mem gin = cl.buf(sizeof(double), &zero), red = cl.buf(sizeof(double) * (size_t)groups_flat, nullptr);
    DevPlan *dp = e.scheme == "staged" ? &plans[l.name] : nullptr;
    int block_offset_arg = -1;
    for (size_t i = 0; i < e.params.size(); i++) {
      const std::string &t = e.params[i];
      const std::string nm = t.substr(0, t.find(':'));
      const int ix = t.find(':') == std::string::npos ? -1 : std::atoi(t.substr(t.find(':') + 1).c_str());
      const int a = (int)i;
      if (nm == "GroupDat") set(k, a, dd[e.groups[ix].first]);
      else if (nm == "IndMap") set(k, a, dp->ind_map);
      else if (nm == "IndMapStart") set(k, a, (int)(dp->p->ind_maps[ix] - dp->p->ind_map));
      else if (nm == "LocMap") set(k, a, dp->loc_map);
      else if (nm == "LocMapStart") set(k, a, (int)(dp->p->loc_maps[ix] - dp->p->loc_map));
      else if (nm == "IndSizes") set(k, a, dp->ind_sizes);
      else if (nm == "IndOffs") set(k, a, dp->ind_offs);
      else if (nm == "Blkmap") set(k, a, dp->blkmap);
      else if (nm == "Offset") set(k, a, dp->offset);
      else if (nm == "Nelems") set(k, a, dp->nelems);
      else if (nm == "Nthrcol") set(k, a, dp->nthrcol);
      else if (nm == "Thrcol") set(k, a, dp->thrcol);
      else if (nm == "BlockOffset") block_offset_arg = a;
      else if (nm == "SetSize" || nm == "Owned") set(k, a, n);
      else if (nm == "Local") { if (clSetKernelArg(k, (cl_uint)a, dp->local_bytes ? dp->local_bytes : 8, nullptr) != CL_SUCCESS) die("local", 0); }
      else if (nm == "Dat" || nm == "IndDat") set(k, a, dd[l.args[ix].dat]);
      else if (nm == "Map") set(k, a, dm[ix]);
      else if (nm == "MapStride") set(k, a, n);
      else if (nm == "GblIn") set(k, a, gin);
      else if (nm == "RedOut") set(k, a, red);
      else die(("unexpected parameter " + t).c_str(), 0);
    }
    if (dp == nullptr) {
      // a flat launch through maps (atomics, or a loop that only reads
      // through its maps) takes the index of its first work-group: one
      // launch over all of them here, so 0
      if (block_offset_arg >= 0)
        set(k, block_offset_arg, 0);
      size_t global = (size_t)groups_flat * BS, local = BS;
      if ((err = clEnqueueNDRangeKernel(cl.q, k, 1, nullptr, &global, &local, 0, nullptr, nullptr)) != CL_SUCCESS)
        die("launch", err);
    } else {
      int first = 0;
      for (int c = 0; c < dp->p->ncolors; c++) {
        const int nblk = dp->p->ncolblk[c];
        set(k, block_offset_arg, first);
        size_t global = (size_t)nblk * BS, local = BS;
        if (nblk > 0 && (err = clEnqueueNDRangeKernel(cl.q, k, 1, nullptr, &global, &local, 0, nullptr, nullptr)) != CL_SUCCESS)
          die("launch", err);
        first += nblk;
      }
    }
    clFinish(cl.q);
    double rms = 0.0;
    if (l.gbl) { // the slots, added in slot order
      std::vector<double> slots((size_t)groups_flat);
      cl.read(red, sizeof(double) * slots.size(), slots.data());
      for (double s : slots)
        rms += s;
    }
    clReleaseMemObject(gin);
    clReleaseMemObject(red);
    return rms;
  };

  // largest difference of a device dat from the host's, relative to the
  // host dat's largest magnitude (components near 0 make element-wise
  // relative differences meaningless)
  auto diff = [&](int d) {
    std::vector<double> dev(hd[d] == nullptr ? 0 : (size_t)dat_dim[d] * set_size[dat_set[d]]);
    cl.read(dd[d], sizeof(double) * dev.size(), dev.data());
    double big = 0.0, worst = 0.0;
    for (size_t i = 0; i < dev.size(); i++) {
      big = std::max(big, std::fabs(hd[d][i]));
      worst = std::max(worst, std::fabs(dev[i] - hd[d][i]));
    }
    return big > 0 ? worst / big : worst;
  };
  const char *dat_name[5] = {"x", "q", "qold", "adt", "res"};
  std::string first_bad;
  auto check = [&](const char *after) {
    for (int d = 1; d < 5 && first_bad.empty(); d++)
      if (!(diff(d) <= 1e-11))
        first_bad = std::string(dat_name[d]) + " after " + after + " (" + std::to_string(diff(d)) + ")";
  };

  // the same steps in plain loops
  const int *pe = m.edge, *pc = m.ecell, *pb = m.bedge, *pbc = m.becell, *cell = m.cell;
  double worst_rms = 0.0;
  for (int step = 0; step < steps; step++) {
    for (int c = 0; c < ncell; c++)
      save_soln(&q[4 * c], &qold[4 * c]);
    run(loops[0]);
    check("save_soln");
    for (int stage = 0; stage < 2; stage++) {
      for (int c = 0; c < ncell; c++)
        adt_calc(&x[2 * cell[4 * c]], &x[2 * cell[4 * c + 1]], &x[2 * cell[4 * c + 2]],
                 &x[2 * cell[4 * c + 3]], &q[4 * c], &adt[c]);
      run(loops[1]);
      check("adt_calc");
      for (int e = 0; e < nedge; e++)
        res_calc(&x[2 * pe[2 * e]], &x[2 * pe[2 * e + 1]], &q[4 * pc[2 * e]], &q[4 * pc[2 * e + 1]],
                 &adt[pc[2 * e]], &adt[pc[2 * e + 1]], &res[4 * pc[2 * e]], &res[4 * pc[2 * e + 1]]);
      run(loops[2]);
      check("res_calc");
      for (int b = 0; b < nbedge; b++)
        bres_calc(&x[2 * pb[2 * b]], &x[2 * pb[2 * b + 1]], &q[4 * pbc[b]], &adt[pbc[b]],
                  &res[4 * pbc[b]], &bound[b]);
      run(loops[3]);
      check("bres_calc");
      double rms = 0.0;
      for (int c = 0; c < ncell; c++)
        update(&qold[4 * c], &q[4 * c], &res[4 * c], &adt[c], &rms);
      const double drms = run(loops[4]);
      check("update");
      worst_rms = std::max(worst_rms, std::fabs(drms - rms) / std::fabs(rms));
    }
  }
  const double worst_q = diff(1);
  const bool ok = first_bad.empty() && worst_q <= 1e-11 && worst_rms <= 1e-11;
  std::printf("%s %s: %d cells, %d steps: q max diff %.3e (relative to max |q|), rms max rel diff %.3e%s%s\n",
              ok ? "ok" : "FAIL", tag.c_str(), ncell, steps, worst_q, worst_rms,
              first_bad.empty() ? "" : "; first difference: ", first_bad.c_str());
  op_exit();
  naca_mesh_free(&m);
  return ok ? 0 : 1;
}
