/* step: increments u directly (OP_INC), then reads the new value, as
   OP2-Common's jac2 update does; records the largest u seen. The type
   helper_real comes from helpers.h too. */
static void step(const double *r, double *u, double *umax) {
  helper_real w = 0.5;
  *u += w * *r;
  *umax = biggest(*umax, *u);
}
