/* step: increments u directly (OP_INC), then reads the new value, as
   OP2-Common's jac2 update does; records the largest u seen. The type
   helper_real comes from helpers.h too; the variable's name is a word
   OpenCL C reserves. */
static void step(const double *r, double *u, double *umax) {
  helper_real local = 0.5;
  *u += local * *r;
  *umax = biggest(*umax, *u);
}
