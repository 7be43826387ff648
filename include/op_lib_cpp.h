/*
 * op2-rs: OP2's typed declaration helpers.
 * C++: OP2's templates (op_decl_dat, op_arg_gbl, ...), with type checks.
 * C:   the same spellings as macros (type-checked with C11 _Generic; C99 checks sizes).
 */
#ifndef __OP_LIB_CPP_H
#define __OP_LIB_CPP_H

#include "op_lib_c.h"

#ifdef __cplusplus

#include <cstring>
#include <type_traits>

namespace op2_rs {
/* OP2's name for the element type T, or nullptr for types op2-rs cannot check. */
template <typename T> inline const char *type_name() { return nullptr; }
template <> inline const char *type_name<double>() { return "double"; }
template <> inline const char *type_name<float>() { return "float"; }
template <> inline const char *type_name<int>() { return "int"; }
template <> inline const char *type_name<unsigned int>() { return "uint"; }
template <> inline const char *type_name<long long>() { return "ll"; }
template <> inline const char *type_name<unsigned long long>() { return "ull"; }
template <> inline const char *type_name<bool>() { return "bool"; }
template <typename T> inline const char *type_name_of() {
  return type_name<typename std::remove_cv<T>::type>();
}
} // namespace op2_rs

/* 0 if `type` names T (OP2's C++ type check). */
inline int type_error(const double *, const char *type) {
  return strcmp(type, "double") && strcmp(type, "double:soa") && strcmp(type, "r8") &&
         strcmp(type, "real(8)") && strcmp(type, "real*8") && strcmp(type, "double precision");
}
inline int type_error(const float *, const char *type) {
  return strcmp(type, "float") && strcmp(type, "float:soa") && strcmp(type, "r4") &&
         strcmp(type, "real(4)") && strcmp(type, "real*4") && strcmp(type, "real");
}
inline int type_error(const int *, const char *type) {
  return strcmp(type, "int") && strcmp(type, "int:soa") && strcmp(type, "i4") &&
         strcmp(type, "integer(4)") && strcmp(type, "integer*4") && strcmp(type, "integer");
}
inline int type_error(const unsigned int *, const char *type) {
  return strcmp(type, "uint") && strcmp(type, "uint:soa");
}
inline int type_error(const long long *, const char *type) {
  return strcmp(type, "ll") && strcmp(type, "ll:soa");
}
inline int type_error(const unsigned long long *, const char *type) {
  return strcmp(type, "ull") && strcmp(type, "ull:soa");
}
inline int type_error(const bool *, const char *type) {
  return strcmp(type, "bool") && strcmp(type, "bool:soa");
}

template <class T>
op_dat op_decl_dat(op_set set, int dim, char const *type, T *data, char const *name) {
  return op2_decl_dat_checked(set, dim, type, (int)sizeof(T), (char *)data, name,
                              op2_rs::type_name_of<T>());
}

template <class T>
op_dat op_decl_dat_temp(op_set set, int dim, char const *type, T *data, char const *name) {
  (void)data;
  return op2_decl_dat_temp_checked(set, dim, type, (int)sizeof(T), name, op2_rs::type_name_of<T>());
}

inline int op_free_dat_temp(op_dat dat) { return op_free_dat_temp_char(dat); }

/* Kernels read the application's own constants directly: this checks the
   declaration and hands a device library the value. */
template <class T> void op_decl_const(int dim, char const *type, T *data) {
  op2_decl_const_checked(dim, type, (int)sizeof(T), (char *)data, nullptr, op2_rs::type_name_of<T>());
}

template <class T> void op_decl_const2(char const *name, int dim, char const *type, T *data) {
  op2_decl_const_checked(dim, type, (int)sizeof(T), (char *)data, name, op2_rs::type_name_of<T>());
}

/* op_decl_const stays a plain function template (OP2's translator finds
   its calls by name): a device library that needs the constant's name
   (libop2_opencl, libop2_cuda) finds it from the address, in the
   program's symbol table. */

template <class T> op_arg op_arg_gbl(T *data, int dim, char const *type, op_access acc) {
  return op2_arg_gbl_checked(1, (char *)data, dim, type, (int)sizeof(T), acc,
                             op2_rs::type_name_of<T>());
}

template <class T>
op_arg op_opt_arg_gbl(int opt, T *data, int dim, char const *type, op_access acc) {
  return op2_arg_gbl_checked(opt, (char *)data, dim, type, (int)sizeof(T), acc,
                             op2_rs::type_name_of<T>());
}

template <class T> op_arg op_arg_info(T *data, int dim, char const *type, int ref) {
  return op_arg_info_char((char *)data, dim, type, (int)sizeof(T), ref);
}

template <class T> void op_fetch_data(op_dat dat, T *data) {
  op2_fetch_data_checked(dat, (char *)data, (int)sizeof(T));
}

template <class T> void op_fetch_data_idx(op_dat dat, T *data, int low, int high) {
  op2_fetch_data_idx_checked(dat, (char *)data, low, high, (int)sizeof(T));
}

inline void op_mpi_reduce(op_arg *args, float *data) { op_mpi_reduce_float(args, data); }
inline void op_mpi_reduce(op_arg *args, double *data) { op_mpi_reduce_double(args, data); }
inline void op_mpi_reduce(op_arg *args, int *data) { op_mpi_reduce_int(args, data); }
inline void op_mpi_reduce(op_arg *args, bool *data) { op_mpi_reduce_bool(args, data); }
template <class T> inline void op_mpi_reduce(op_arg *args, T *data) {
  (void)args;
  (void)data;
}

#else /* C */

#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define OP2_TYPE_NAME(p)                                                                          \
  _Generic(*(p), double: "double", float: "float", int: "int", unsigned int: "uint",              \
           long long: "ll", unsigned long long: "ull", _Bool: "bool", default: (const char *)0)
#else
#define OP2_TYPE_NAME(p) ((const char *)0)
#endif

#define op_decl_dat(set, dim, type, data, name)                                                   \
  op2_decl_dat_checked(set, dim, type, (int)sizeof(*(data)), (char *)(data), name,               \
                       OP2_TYPE_NAME(data))
#define op_decl_dat_temp(set, dim, type, data, name)                                              \
  op2_decl_dat_temp_checked(set, dim, type, (int)sizeof(*(data)), name, OP2_TYPE_NAME(data))
#define op_free_dat_temp(dat) op_free_dat_temp_char(dat)
#define op_decl_const(dim, type, data)                                                            \
  op2_decl_const_checked(dim, type, (int)sizeof(*(data)), (char *)(data), #data,                 \
                         OP2_TYPE_NAME(data))
#define op_decl_const2(name, dim, type, data)                                                     \
  op2_decl_const_checked(dim, type, (int)sizeof(*(data)), (char *)(data), name,                  \
                         OP2_TYPE_NAME(data))
#define op_arg_gbl(data, dim, type, acc)                                                          \
  op2_arg_gbl_checked(1, (char *)(data), dim, type, (int)sizeof(*(data)), acc,                   \
                      OP2_TYPE_NAME(data))
#define op_opt_arg_gbl(opt, data, dim, type, acc)                                                 \
  op2_arg_gbl_checked(opt, (char *)(data), dim, type, (int)sizeof(*(data)), acc,                 \
                      OP2_TYPE_NAME(data))
#define op_arg_info(data, dim, type, ref)                                                         \
  op_arg_info_char((char *)(data), dim, type, (int)sizeof(*(data)), ref)
#define op_fetch_data(dat, data) op2_fetch_data_checked(dat, (char *)(data), (int)sizeof(*(data)))
#define op_fetch_data_idx(dat, data, low, high)                                                   \
  op2_fetch_data_idx_checked(dat, (char *)(data), low, high, (int)sizeof(*(data)))

#endif /* __cplusplus */

#endif /* __OP_LIB_CPP_H */
