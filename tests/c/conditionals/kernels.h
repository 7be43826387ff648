/*
 * kernels.h -- kernels whose source depends on preprocessor conditionals,
 * as legacy codes write them: which definition is compiled, and what a
 * body computes, follow macros of the program's build. A device library
 * must decide them as the build did, or say it cannot.
 */
#ifndef CONDITIONALS_KERNELS_H
#define CONDITIONALS_KERNELS_H

#ifndef WEIGHT
#define WEIGHT 0.5 /* a default the build may replace */
#endif

/* two definitions: the main file defines SCALE_TWICE before it includes
   this header */
#ifdef SCALE_TWICE
static inline void scale(const double *x, double *y) { y[0] = 2.0 * x[0] + WEIGHT; }
#else
static inline void scale(const double *x, double *y) { y[0] = 3.0 * x[0] + WEIGHT; }
#endif

/* a body that follows a value set in settings.h, which the main file
   includes first */
static inline void shift(const double *x, double *y) {
#if SHIFT_BY > 1 && defined(SCALE_TWICE)
  y[0] = x[0] + SHIFT_BY;
#elif SHIFT_BY == 1
  y[0] = x[0] + 1.0;
#else
  y[0] = x[0] - 1.0;
#endif
}

/* a body that follows BUILD_MODE, set on the build line (-DBUILD_MODE=4):
   no file says its value */
static inline void mode(const double *x, double *y) {
#ifdef BUILD_MODE
  y[0] = x[0] * BUILD_MODE;
#else
  y[0] = -x[0];
#endif
}

#if 0
static inline void retired(const double *x, double *y) { y[0] = x[0]; }
#endif

#endif
