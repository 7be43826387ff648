/* big_offsets' kernels: a cell's 32 ints stamped with its number, then
   one increment per edge into the cell it points at. */
#ifndef BIG_OFFSETS_KERNELS_H
#define BIG_OFFSETS_KERNELS_H

inline void stamp(int *x, const int *i) {
  for (int k = 0; k < 32; ++k)
    x[k] = (*i % 1000000) * 64 + k;
}

inline void bump(int *x) {
  for (int k = 0; k < 32; ++k)
    x[k] += 1;
}

#endif
