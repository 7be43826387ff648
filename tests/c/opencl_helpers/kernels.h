/* step: increments u directly (OP_INC), then reads the new value, as
   OP2-Common's jac2 update does; records the largest u seen. */
static void step(const double *r, double *u, double *umax) {
  *u += 0.5 * *r;
  *umax = biggest(*umax, *u);
}
