! Kernels of tests/fortran/fallback.F90.
module fallback_kernels
  implicit none
contains
  subroutine zero(v)
    real(8), dimension(1), intent(out) :: v
    v(1) = 0.0_8
  end subroutine zero

  ! y = 2 x (direct, over nodes)
  subroutine scale(x, y)
    real(8), dimension(1), intent(in) :: x
    real(8), dimension(1), intent(out) :: y
    y(1) = 2.0_8 * x(1)
  end subroutine scale

  ! e = y(from) + y(to) (over edges, y read through the edge map)
  subroutine gather(ya, yb, e)
    real(8), dimension(1), intent(in) :: ya, yb
    real(8), dimension(1), intent(out) :: e
    e(1) = ya(1) + yb(1)
  end subroutine gather
end module fallback_kernels
