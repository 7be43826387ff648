! Kernels of tests/fortran/hdf5_features.F90.

module hdf5_features_kernels

  implicit none

contains

  ! nodes, direct: s += x(1) + 10 x(2)
  subroutine sum_x(x, s)
    real(8), dimension(2), intent(in) :: x
    real(8), intent(inout) :: s
    s = s + x(1) + 10.0_8 * x(2)
  end subroutine sum_x

  ! elements, through the map: s += first coordinate of both nodes, weighted
  subroutine sum_ends(xa, xb, w, s)
    real(8), dimension(2), intent(in) :: xa
    real(8), dimension(2), intent(in) :: xb
    real(4), intent(in) :: w
    real(8), intent(inout) :: s
    s = s + real(w, 8) * (xa(1) + 2.0_8 * xb(1))
  end subroutine sum_ends

  ! nodes, direct: x = 2 x + id
  subroutine scale_x(x, id)
    real(8), dimension(2), intent(inout) :: x
    integer(4), intent(in) :: id
    x = 2.0_8 * x + real(id, 8)
  end subroutine scale_x

end module hdf5_features_kernels
