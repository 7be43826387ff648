/* Run op2-codegen's OpenCL code for its synthetic loop `mixed` (a vector
 * map argument on an SoA dat, an optional float increment through a map,
 * op_arg_idx, a direct int dat, float min / int max / double sum
 * reductions) on the first OpenCL device, staged or flat, with the optional
 * argument present and absent, and compare with the same kernel called in a
 * plain C++ loop (scripts/codegen_check.sh).
 *
 *   opencl_mixed SRC_DIR colour2|atomics
 *
 * Exits 0 when w is within 1e-5 relative of the loop's (float increments
 * added in another order), the min and max are equal and the sum within
 * 1e-12 relative. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "op_lib_c.h"

static const double scale = 0.5;
#ifndef MIN
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#endif
#ifndef MAX
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#endif
#include "mixed.kernel.h"

static const int BS = 64;

static void die(const std::string &what, int err) {
  std::fprintf(stderr, "opencl_mixed: %s (error %d)\n", what.c_str(), err);
  std::exit(1);
}

template <typename T> static void set(cl_kernel k, size_t i, const T &v) {
  cl_int err = clSetKernelArg(k, (cl_uint)i, sizeof(T), &v);
  if (err != CL_SUCCESS)
    die("clSetKernelArg " + std::to_string(i), err);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s SRC_DIR colour2|atomics\n", argv[0]);
    return 2;
  }
  const std::string dir = argv[1], tag = argv[2];
  std::string file, entry, scheme, groups, line;
  std::vector<std::string> params;
  {
    std::ifstream in(dir + "/entries.txt");
    while (std::getline(in, line)) {
      std::istringstream ls(line);
      ls >> file;
      if (file != "mixed-" + tag + ".cl")
        continue;
      ls >> entry >> scheme >> groups;
      for (std::string p; ls >> p;)
        params.push_back(p);
      break;
    }
  }
  if (params.empty())
    die("no mixed-" + tag + ".cl in entries.txt", 0);

  // a random mesh: nodes with coordinates, edges with two distinct nodes
  const int N = 1000, E = 3000;
  unsigned long s = 12345;
  auto rnd = [&]() { s = s * 6364136223846793005UL + 1442695040888963407UL; return (unsigned)(s >> 33); };
  std::vector<double> x(2 * N);
  for (double &v : x)
    v = (rnd() % 100000) / 1000.0;
  std::vector<int> e2n(2 * E), tagv(E);
  for (int e = 0; e < E; e++) {
    e2n[2 * e] = (int)(rnd() % N);
    do
      e2n[2 * e + 1] = (int)(rnd() % N);
    while (e2n[2 * e + 1] == e2n[2 * e]);
    tagv[e] = e % 7;
  }

  op_init(0, nullptr, 0);
  op_set nodes = op_decl_set(N, "nodes"), edges = op_decl_set(E, "edges");
  op_map m = op_decl_map(edges, nodes, 2, e2n.data(), "e2n");
  std::vector<float> w0(N, 1.0f);
  op_dat ox = op_decl_dat_char(nodes, 2, "double", 8, (char *)x.data(), "x");
  op_dat ow = op_decl_dat_char(nodes, 1, "float", 4, (char *)w0.data(), "w");
  double dummy = 0.0;

  cl_platform_id plat;
  cl_device_id dev;
  cl_int err = clGetPlatformIDs(1, &plat, nullptr);
  if (err == CL_SUCCESS)
    err = clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 1, &dev, nullptr);
  if (err != CL_SUCCESS)
    die("no OpenCL device", err);
  cl_context ctx = clCreateContext(nullptr, 1, &dev, nullptr, nullptr, &err);
  cl_command_queue q = clCreateCommandQueue(ctx, dev, 0, &err);
  auto buf = [&](size_t bytes, const void *h) {
    cl_mem b = clCreateBuffer(ctx, CL_MEM_READ_WRITE | (h ? CL_MEM_COPY_HOST_PTR : 0), bytes ? bytes : 8,
                              const_cast<void *>(h), &err);
    if (err != CL_SUCCESS)
      die("clCreateBuffer", err);
    return b;
  };
  std::string src;
  {
    std::ifstream in(dir + "/" + file);
    std::stringstream ss;
    ss << in.rdbuf();
    src = ss.str();
  }
  const char *cs = src.c_str();
  cl_program prog = clCreateProgramWithSource(ctx, 1, &cs, nullptr, &err);
  if (clBuildProgram(prog, 1, &dev, "-cl-std=CL1.2", nullptr, nullptr) != CL_SUCCESS)
    die("build " + file, 0);
  cl_kernel k = clCreateKernel(prog, entry.c_str(), &err);
  if (err != CL_SUCCESS)
    die("kernel", err);

  // device data: x SoA with stride N, w, tag, the transposed map
  std::vector<double> xs(2 * N);
  for (int n = 0; n < N; n++)
    for (int c = 0; c < 2; c++)
      xs[c * N + n] = x[2 * n + c];
  std::vector<int> mt(2 * E);
  for (int e = 0; e < E; e++)
    for (int j = 0; j < 2; j++)
      mt[j * E + e] = e2n[2 * e + j];
  cl_mem dx = buf(8 * xs.size(), xs.data()), dt = buf(4 * E, tagv.data()), dm = buf(4 * mt.size(), mt.data());

  // the plan: the vector argument counts once per entry
  op_plan *p = nullptr;
  cl_mem pind = nullptr, ploc = nullptr, psz = nullptr, pof = nullptr, poff = nullptr, pne = nullptr,
         pnt = nullptr, pth = nullptr, pbm = nullptr;
  size_t local = 8;
  if (scheme == "staged") {
    op_arg a[8] = {op_arg_dat(ox, 0, m, 2, "double", OP_READ),
                   op_arg_dat(ox, 1, m, 2, "double", OP_READ),
                   op_arg_dat(ow, 0, m, 1, "float", OP_INC),
                   op_arg_gbl_char((char *)&dummy, 1, "double", 8, OP_READ),
                   op_arg_gbl_char((char *)&dummy, 1, "double", 8, OP_READ),
                   op_arg_gbl_char((char *)&dummy, 1, "double", 8, OP_READ),
                   op_arg_gbl_char((char *)&dummy, 1, "double", 8, OP_READ),
                   op_arg_gbl_char((char *)&dummy, 1, "double", 8, OP_READ)};
    int inds[8] = {0, 0, 1, -1, -1, -1, -1, -1};
    p = op_plan_get_stage("mixed", edges, BS, 8, a, 2, inds, OP_STAGE_ALL);
    const int nb = p->nblocks;
    size_t il = 0, ll = 0;
    for (int g = 0; g < 2; g++)
      il = std::max(il, (size_t)(p->ind_maps[g] - p->ind_map) + (size_t)p->nindirect[g]);
    for (int j = 0; j < 3; j++)
      ll = std::max(ll, (size_t)(p->loc_maps[j] - p->loc_map) + (size_t)E);
    for (int b = 0; b < nb; b++)
      local = std::max(local, (size_t)((p->ind_sizes[2 * b] * 16 + 7) / 8 * 8 + (p->ind_sizes[2 * b + 1] * 4 + 7) / 8 * 8));
    pind = buf(4 * il, p->ind_map);
    ploc = buf(2 * ll, p->loc_map);
    psz = buf(8 * (size_t)nb, p->ind_sizes);
    pof = buf(8 * (size_t)nb, p->ind_offs);
    poff = buf(4 * (size_t)nb, p->offset);
    pne = buf(4 * (size_t)nb, p->nelems);
    pnt = buf(4 * (size_t)nb, p->nthrcol);
    pth = buf(4 * (size_t)E, p->thrcol);
    pbm = buf(4 * (size_t)nb, p->blkmap);
  }
  const int slots = scheme == "staged" ? p->nblocks : (E + BS - 1) / BS;

  int fails = 0;
  for (int opt = 1; opt >= 0; opt--) {
    // reference
    std::vector<float> w(N, 1.0f);
    float wmin = FLT_MAX;
    int tmax = INT_MIN;
    double len2 = 0.0;
    for (int e = 0; e < E; e++) {
      const double *xp[2] = {&x[2 * e2n[2 * e]], &x[2 * e2n[2 * e + 1]]};
      float inc = 0.0f;
      mixed(xp, opt ? &inc : nullptr, &e, &tagv[e], &wmin, &tmax, &len2);
      if (opt)
        w[e2n[2 * e]] += inc;
    }
    // device
    cl_mem dw = buf(4 * (size_t)N, w0.data());
    const float fmax = FLT_MAX;
    cl_mem gi4 = buf(4, &fmax), r4 = buf(4 * (size_t)slots, nullptr);
    const int imin = INT_MIN;
    cl_mem gi5 = buf(4, &imin), r5 = buf(4 * (size_t)slots, nullptr);
    const double zero = 0.0;
    cl_mem gi6 = buf(8, &zero), r6 = buf(8 * (size_t)slots, nullptr);
    long bo = -1; // BlockOffset's position, when the code has one
    for (size_t i = 0; i < params.size(); i++) {
      const std::string &t = params[i];
      const std::string nm = t.substr(0, t.find(':'));
      const int ix = t.find(':') == std::string::npos ? -1 : std::atoi(t.substr(t.find(':') + 1).c_str());
      cl_mem gin[7] = {nullptr, nullptr, nullptr, nullptr, gi4, gi5, gi6};
      cl_mem red[7] = {nullptr, nullptr, nullptr, nullptr, r4, r5, r6};
      if (nm == "GroupDat" || nm == "IndDat") set(k, i, ix == 0 ? dx : dw);
      else if (nm == "GroupStride" || nm == "IndDatStride") set(k, i, N);
      else if (nm == "IndMap") set(k, i, pind);
      else if (nm == "IndMapStart") set(k, i, (int)(p->ind_maps[ix] - p->ind_map));
      else if (nm == "LocMap") set(k, i, ploc);
      else if (nm == "LocMapStart") set(k, i, (int)(p->loc_maps[ix] - p->loc_map));
      else if (nm == "IndSizes") set(k, i, psz);
      else if (nm == "IndOffs") set(k, i, pof);
      else if (nm == "Opt") set(k, i, opt);
      else if (nm == "Dat") set(k, i, dt);
      else if (nm == "GblIn") set(k, i, gin[ix]);
      else if (nm == "GblValue" && ix == 4) set(k, i, fmax); // by value: the minimum's start
      else if (nm == "GblValue" && ix == 5) set(k, i, imin); // and the maximum's
      else if (nm == "RedOut") set(k, i, red[ix]);
      else if (nm == "SetSize" || nm == "MapStride" || nm == "Owned") set(k, i, E);
      else if (nm == "Map") set(k, i, dm);
      else if (nm == "Blkmap") set(k, i, pbm);
      else if (nm == "Offset") set(k, i, poff);
      else if (nm == "Nelems") set(k, i, pne);
      else if (nm == "Nthrcol") set(k, i, pnt);
      else if (nm == "Thrcol") set(k, i, pth);
      else if (nm == "BlockOffset") bo = (long)i;
      else if (nm == "Local") { if (clSetKernelArg(k, (cl_uint)i, local, nullptr) != CL_SUCCESS) die("local", 0); }
      else die("unexpected parameter " + t, 0);
    }
    if (p == nullptr) {
      if (bo >= 0) // one flat launch over every work-group
        set(k, (size_t)bo, 0);
      size_t g = (size_t)slots * BS, l = BS;
      if ((err = clEnqueueNDRangeKernel(q, k, 1, nullptr, &g, &l, 0, nullptr, nullptr)) != CL_SUCCESS)
        die("launch", err);
    } else {
      int first = 0;
      for (int c = 0; c < p->ncolors; c++) {
        if (bo < 0)
          die("staged code without a block_offset parameter", 0);
        set(k, (size_t)bo, first);
        size_t g = (size_t)p->ncolblk[c] * BS, l = BS;
        if (g > 0 && (err = clEnqueueNDRangeKernel(q, k, 1, nullptr, &g, &l, 0, nullptr, nullptr)) != CL_SUCCESS)
          die("launch", err);
        first += p->ncolblk[c];
      }
    }
    clFinish(q);
    std::vector<float> dw_h(N), s4(slots);
    std::vector<int> s5(slots);
    std::vector<double> s6(slots);
    clEnqueueReadBuffer(q, dw, CL_TRUE, 0, 4 * (size_t)N, dw_h.data(), 0, nullptr, nullptr);
    clEnqueueReadBuffer(q, r4, CL_TRUE, 0, 4 * (size_t)slots, s4.data(), 0, nullptr, nullptr);
    clEnqueueReadBuffer(q, r5, CL_TRUE, 0, 4 * (size_t)slots, s5.data(), 0, nullptr, nullptr);
    clEnqueueReadBuffer(q, r6, CL_TRUE, 0, 8 * (size_t)slots, s6.data(), 0, nullptr, nullptr);
    float dmin = FLT_MAX;
    int dmax = INT_MIN;
    double dsum = 0.0;
    for (int i = 0; i < slots; i++) { // the slots in order
      dmin = MIN(dmin, s4[i]);
      dmax = MAX(dmax, s5[i]);
      dsum += s6[i];
    }
    double wworst = 0.0;
    for (int n = 0; n < N; n++)
      wworst = std::max(wworst, (double)std::fabs(dw_h[n] - w[n]) / std::max(1.0, (double)std::fabs(w[n])));
    const bool ok = wworst <= 1e-5 && dmin == wmin && dmax == tmax && std::fabs(dsum - len2) <= 1e-12 * std::fabs(len2);
    std::printf("%s %s opt=%d: %d edges, w max rel diff %.2e, min %g/%g, max %d/%d, sum rel diff %.2e\n",
                ok ? "ok" : "FAIL", tag.c_str(), opt, E, wworst, dmin, wmin, dmax, tmax,
                std::fabs(dsum - len2) / std::fabs(len2));
    fails += !ok;
    for (cl_mem b : {dw, gi4, r4, gi5, r5, gi6, r6})
      clReleaseMemObject(b);
  }
  op_exit();
  return fails ? 1 : 0;
}
