/* A helper the kernel calls, defined where the program's main file (not the
   kernel's header) includes it, as OP2-Common's jac1 defines maxfun. */
#ifndef HELPER_PREFIX
#define HELPER_PREFIX
#endif
/* a type the kernel's header uses and does not define */
typedef double helper_real;
static inline HELPER_PREFIX double biggest(double a, double b) { return a > b ? a : b; }
