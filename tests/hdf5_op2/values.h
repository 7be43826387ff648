// values.h -- the mesh, data and constants that writer.cpp stores and
// reader.cpp checks (op2-rs's cross-check against OP2's own HDF5 library,
// scripts/op2_hdf5_check.sh). Every value is exactly representable in its
// type, so a reader can compare with ==.
#ifndef OP2RS_HDF5_OP2_VALUES_H
#define OP2RS_HDF5_OP2_VALUES_H

static const int NNODE = 7;
static const int NCELL = 5;
static const int MAPDIM = 3;

// dats: name, type string and dim
#define X_NAME "fields/x"        // nodes, "double", dim 2
#define F_NAME "fields/f"        // cells, "float", dim 1
#define I_NAME "ivals"           // nodes, "int", dim 3
#define L_NAME "fields/deep/l"   // cells, "long", dim 2
#define LL_NAME "ll"             // cells, "long long", dim 1
#define S_NAME "soa/xs"          // nodes, "double:soa", dim 2
#define MAP_NAME "mesh/c2n"      // cells -> nodes, dim MAPDIM
#define FETCH_PATH "fetched/x"   // op_fetch_data_hdf5_file_path of X

static inline double x_val(int n, int k) { return 0.5 * n + 0.25 * k + 0.125; }
static inline float f_val(int c) { return 1.5f * (float)c - 0.75f; }
static inline int i_val(int n, int k) { return 100 * n - 7 * k; }
static inline long l_val(int c, int k) { return 4000000000L * (c + 1) - k; }
static inline long long ll_val(int c) { return -9000000000LL * (c + 1); }
static inline double s_val(int n, int k) { return -2.0 * n + k / 8.0; }
static inline int map_val(int c, int k) { return (c + 2 * k) % NNODE; }

// constants written with op_write_const_hdf5
static const double C_GAM = 1.4;
static const double C_QINF[4] = {1.0, 0.5, -0.25, 1e-300};
static const int C_NINT[2] = {3, -9};
static const float C_FL[3] = {0.125f, 0.25f, -0.5f};
static const long C_LG[1] = {-5000000000L};
static const double C_CST[2] = {2.5, -1.5}; // "fields/cst": inside a group made by the dump

#endif
